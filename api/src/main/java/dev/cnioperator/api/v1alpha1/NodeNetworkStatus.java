package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.Optional;
import lombok.Data;

/** The agent's report on one network of its node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class NodeNetworkStatus {

  @JsonPropertyDescription("The CniNetwork.")
  @Required
  private String name;

  @JsonPropertyDescription("sha256 of the content on disk, when it was applied.")
  private String appliedSha256;

  @JsonPropertyDescription(
      "Applied, Failed (with message), Conflict (a file of that name the agent does not own), Contested (the agent's file was taken away again after each of its last restores, as by an installer that takes the directory over, or the other product's file was rewritten without the network's appended entries after each of the agent's last re-appends; the agent pauses, and message says what it saw and until when) or Removed (the network was taken off this node and its file deleted).")
  private NetworkState state;

  @JsonPropertyDescription("Why the state is not Applied, in words a person can act on.")
  private String message;

  @JsonPropertyDescription(
      "Plugins another installer appended after the network's own in its file: kept, not drift, and carried into new revisions.")
  private AppendedPlugins appendedPlugins;

  @JsonPropertyDescription("Live attachments of this network on the node and their CHECK outcome.")
  private AttachmentSummary attachments;

  @JsonPropertyDescription("IP reservations of this network on the node.")
  private IpamSummary ipam;

  @JsonPropertyDescription("When the last CHECK round ended (RFC 3339).")
  private String lastCheckTime;

  @JsonPropertyDescription(
      "Outcome of the CNI STATUS verb (1.1.0 networks): \"Available\", or the error the plugin returned.")
  private String pluginStatus;

  @JsonPropertyDescription(
      "The agent's probe of the content it applied: a probe attachment (ADD, CHECK, DEL in a namespace of its own), STATUS on 1.1.0, and a CHECK of the live attachments.")
  private ProbeReport probe;

  /**
   * The result of the agent's probe of the content this node holds now ({@code appliedSha256});
   * empty when no probe was made or the last one was of other content, which says nothing of this.
   * Both programs read a probe this way only.
   */
  public Optional<ProbeResult> probeOfContent() {
    return probe != null && probe.getSha256() != null && probe.getSha256().equals(appliedSha256)
        ? Optional.ofNullable(probe.getResult())
        : Optional.empty();
  }
}
