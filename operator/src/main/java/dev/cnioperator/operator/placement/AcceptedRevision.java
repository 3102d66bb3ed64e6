package dev.cnioperator.operator.placement;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import java.util.Comparator;
import java.util.Optional;

/**
 * The revision of a CniNetwork that nodes hold: its last valid rendering (status.rendered), with
 * the creation time that decides who keeps a clashing name.
 */
public record AcceptedRevision(String resource, String createdAt, RenderedConfig rendered) {

  /** Older first; same age by resource name, so every decision is the same on every run. */
  public static final Comparator<AcceptedRevision> SENIORITY =
      Comparator.comparing(AcceptedRevision::createdAt).thenComparing(AcceptedRevision::resource);

  /** The revision nodes should hold, or empty while the network is new, invalid or deleted. */
  public static Optional<AcceptedRevision> of(CniNetwork network) {
    if (network.getMetadata().getDeletionTimestamp() != null
        || network.getStatus() == null
        || network.getStatus().getRendered() == null) {
      return Optional.empty();
    }
    return Optional.of(withRendering(network, network.getStatus().getRendered()));
  }

  /** {@code network} holding {@code rendered}, whatever its status says. */
  public static AcceptedRevision withRendering(CniNetwork network, RenderedConfig rendered) {
    return new AcceptedRevision(
        network.getMetadata().getName(), network.getMetadata().getCreationTimestamp(), rendered);
  }

  public String networkName() {
    return rendered.getNetworkName();
  }

  public String fileName() {
    return rendered.getFileName();
  }
}
