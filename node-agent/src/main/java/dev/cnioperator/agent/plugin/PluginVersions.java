package dev.cnioperator.agent.plugin;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs VERSION on each usable binary and remembers the answer per binary content (name and sha256),
 * so a pass only executes binaries that are new or changed.
 */
public final class PluginVersions {
  private static final Logger LOG = LoggerFactory.getLogger(PluginVersions.class);

  private final VersionProbe probe;
  private final Map<String, List<String>> bySha = new HashMap<>();

  public PluginVersions(VersionProbe probe) {
    this.probe = probe;
  }

  /** {@code outcomes} with the versions each binary reports; a failed probe becomes its error. */
  public List<PluginOutcome> annotate(List<PluginOutcome> outcomes) {
    return outcomes.stream().map(this::annotate).toList();
  }

  private PluginOutcome annotate(PluginOutcome o) {
    if (o.sha256() == null) {
      return o;
    }
    String key = o.name() + "@" + o.sha256();
    List<String> known = bySha.get(key);
    if (known != null) {
      return o.withVersions(known);
    }
    try {
      List<String> versions = List.copyOf(probe.supportedVersions(o.name()));
      bySha.put(key, versions);
      LOG.info(
          "event=plugin-version plugin={} sha256={} versions={}", o.name(), o.sha256(), versions);
      return o.withVersions(versions);
    } catch (RuntimeException e) {
      LOG.warn("event=plugin-version-failed plugin={} error=\"{}\"", o.name(), e.getMessage());
      return o.withError(
          o.error() != null
              ? o.error()
              : "plugin " + o.name() + " failed VERSION: " + e.getMessage());
    }
  }
}
