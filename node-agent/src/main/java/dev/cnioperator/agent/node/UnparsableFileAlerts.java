package dev.cnioperator.agent.node;

import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.api.v1alpha1.UnparsableFile;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells of the files in Multus's directory that Multus cannot parse once per change, not on every
 * pass: a file found (or failing with another error) is logged and gets a Warning Event on the
 * CniNode; a file fixed or removed is logged. The CniNode status lists them all the while.
 */
final class UnparsableFileAlerts {
  private static final Logger LOG = LoggerFactory.getLogger(UnparsableFileAlerts.class);

  /** Records a Warning Event with this reason and message on the CniNode. */
  @FunctionalInterface
  interface CniNodeWarning {
    void warn(EventReason reason, String message);
  }

  /** The files told of, with their error; only the pass thread touches it. */
  private final Map<String, String> told = new HashMap<>();

  /** Tells of what changed since the last pass's {@code now}. */
  void update(List<UnparsableFile> now, CniNodeWarning warning) {
    Map<String, String> seen = new HashMap<>();
    for (UnparsableFile f : now) {
      seen.put(f.getFile(), f.getError());
      if (!Objects.equals(told.get(f.getFile()), f.getError())) {
        LOG.warn(
            "event=unparsable-foreign-file file={} error=\"{}\" reason=\"Multus stops at this"
                + " file: every NetworkAttachmentDefinition without a config fails on this node"
                + " until it is fixed or removed\"",
            f.getFile(),
            f.getError());
        warning.warn(
            EventReason.UNPARSABLE_MULTUS_CONFIG,
            "Multus cannot parse "
                + f.getFile()
                + " ("
                + f.getError()
                + "): it stops there, so every NetworkAttachmentDefinition without a config fails"
                + " on this node until the file is fixed or removed");
      }
    }
    for (String gone : told.keySet()) {
      if (!seen.containsKey(gone)) {
        LOG.info("event=unparsable-foreign-file-gone file={}", gone);
      }
    }
    told.clear();
    told.putAll(seen);
  }
}
