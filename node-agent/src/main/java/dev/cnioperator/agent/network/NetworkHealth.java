package dev.cnioperator.agent.network;

import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.IpamSummary;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import java.util.Objects;

/**
 * What the CHECK loop, IPAM cleanup and STATUS last found for one network; null fields are unknown.
 *
 * @param lastCheckTime RFC 3339 time of the CHECK pass whose result (attachments, STATUS) differed
 *     from the one before: it moves only with a result, so that an unchanged node writes nothing
 * @param pluginStatus "Available" or the STATUS error (1.1.0 networks)
 * @param cleanupMessage why the last cleanup did not run or what stopped it; null when it ran
 * @param probe the last probe of the network's applied content
 * @param claimableAddresses the addresses pods that claim the network may take on the node (the
 *     last cleanup pass counted them: host-local's free ones and those of pods whose claim the
 *     kubelet prepared here), null where that is unknown; published to the scheduler as the
 *     device's capacity, not in the status
 */
public record NetworkHealth(
    AttachmentSummary attachments,
    IpamSummary ipam,
    String lastCheckTime,
    String pluginStatus,
    String cleanupMessage,
    ProbeReport probe,
    Long claimableAddresses) {

  public static final NetworkHealth UNKNOWN =
      new NetworkHealth(null, null, null, null, null, null, null);

  /**
   * A CHECK pass's result; {@code checkedAt} becomes the last CHECK time only when the result
   * differs from the one before (or none was known).
   */
  public NetworkHealth withCheck(AttachmentSummary a, String status, String checkedAt) {
    boolean same =
        lastCheckTime != null
            && Objects.equals(a, attachments)
            && Objects.equals(status, pluginStatus);
    return new NetworkHealth(
        a,
        ipam,
        same ? lastCheckTime : checkedAt,
        status,
        cleanupMessage,
        probe,
        claimableAddresses);
  }

  /**
   * The last cleanup's summary (kept from before when it could not run), message and count of
   * claimable addresses (unknown when it could not count them).
   */
  public NetworkHealth withCleanup(IpamSummary i, String message, Long claimable) {
    return new NetworkHealth(
        attachments,
        i == null ? ipam : i,
        lastCheckTime,
        pluginStatus,
        message == null || message.isEmpty() ? null : message,
        probe,
        claimable);
  }

  /** The outcome of a probe of the applied content. */
  public NetworkHealth withProbe(ProbeReport p) {
    return new NetworkHealth(
        attachments, ipam, lastCheckTime, pluginStatus, cleanupMessage, p, claimableAddresses);
  }
}
