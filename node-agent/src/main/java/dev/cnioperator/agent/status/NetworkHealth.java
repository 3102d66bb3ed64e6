package dev.cnioperator.agent.status;

import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.IpamSummary;

/**
 * What the CHECK loop, IPAM cleanup and STATUS last found for one network; null fields are unknown.
 *
 * @param lastCheckTime RFC 3339 time of the last CHECK pass
 * @param pluginStatus "Available" or the STATUS error (1.1.0 networks)
 */
public record NetworkHealth(
    AttachmentSummary attachments, IpamSummary ipam, String lastCheckTime, String pluginStatus) {

  public static final NetworkHealth UNKNOWN = new NetworkHealth(null, null, null, null);

  public NetworkHealth withAttachments(AttachmentSummary a, String checkedAt) {
    return new NetworkHealth(a, ipam, checkedAt, pluginStatus);
  }

  public NetworkHealth withIpam(IpamSummary i) {
    return new NetworkHealth(attachments, i, lastCheckTime, pluginStatus);
  }

  public NetworkHealth withPluginStatus(String s) {
    return new NetworkHealth(attachments, ipam, lastCheckTime, s);
  }
}
