package dev.cnioperator.agent.status;

import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.IpamSummary;

/**
 * What the CHECK loop, IPAM cleanup and STATUS last found for one network; null fields are unknown.
 *
 * @param lastCheckTime RFC 3339 time of the last CHECK pass
 * @param pluginStatus "Available" or the STATUS error (1.1.0 networks)
 * @param cleanupMessage why the last cleanup did not run or what stopped it; null when it ran
 */
public record NetworkHealth(
    AttachmentSummary attachments,
    IpamSummary ipam,
    String lastCheckTime,
    String pluginStatus,
    String cleanupMessage) {

  public static final NetworkHealth UNKNOWN = new NetworkHealth(null, null, null, null, null);

  public NetworkHealth withAttachments(AttachmentSummary a, String checkedAt) {
    return new NetworkHealth(a, ipam, checkedAt, pluginStatus, cleanupMessage);
  }

  /** The last cleanup's summary (kept from before when it could not run) and message. */
  public NetworkHealth withCleanup(IpamSummary i, String message) {
    return new NetworkHealth(
        attachments,
        i == null ? ipam : i,
        lastCheckTime,
        pluginStatus,
        message == null || message.isEmpty() ? null : message);
  }

  public NetworkHealth withPluginStatus(String s) {
    return new NetworkHealth(attachments, ipam, lastCheckTime, s, cleanupMessage);
  }
}
