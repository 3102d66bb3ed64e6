package dev.cnioperator.operator;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Evens out JOSDK's meter tags for Prometheus, which needs one set of tag keys per meter name:
 * JOSDK tags events of core resources (Nodes) without "group", and those of CniNetworks with it.
 */
final class JosdkMeterTags {

  /** Gives every JOSDK meter a "group" tag, "core" where JOSDK left it out. */
  static final MeterFilter ALWAYS_WITH_GROUP =
      new MeterFilter() {
        @Override
        public Meter.Id map(Meter.Id id) {
          if (id.getName().startsWith("operator.sdk") && id.getTag("group") == null) {
            return id.withTag(Tag.of("group", "core"));
          }
          return id;
        }
      };

  private JosdkMeterTags() {}
}
