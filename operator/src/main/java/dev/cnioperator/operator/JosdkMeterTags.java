package dev.cnioperator.operator;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Evens out JOSDK's meter tags for Prometheus, which needs one set of tag keys per meter name:
 * JOSDK leaves the group tag ("group", or "resource.group" on per-controller meters) out for core
 * resources (Nodes) and puts it in for CniNetworks. Without this, the second meter of a name fails
 * to register and its samples are lost. Meters without the resource's kind (the per-controller
 * success and failure counters) have no group tag at all, and get none.
 */
final class JosdkMeterTags {
  private static final String CORE = "core";

  /** Gives every JOSDK meter of a resource kind its group tag, "core" where JOSDK left it out. */
  static final MeterFilter ALWAYS_WITH_GROUP =
      new MeterFilter() {
        @Override
        public Meter.Id map(Meter.Id id) {
          if (!id.getName().startsWith("operator.sdk")) {
            return id;
          }
          boolean perResource =
              id.getTags().stream().anyMatch(t -> t.getKey().startsWith("resource."));
          String prefix = perResource ? "resource." : "";
          if (id.getTag(prefix + "kind") == null || id.getTag(prefix + "group") != null) {
            return id;
          }
          return id.withTag(Tag.of(prefix + "group", CORE));
        }
      };

  private JosdkMeterTags() {}
}
