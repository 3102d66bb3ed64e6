package dev.cnioperator.operator.placement;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.operator.rollout.NodeRevisionChoice;
import dev.cnioperator.operator.rollout.NodeRevisionChoice.Placing;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The revision of a CniNetwork that nodes hold: its last valid rendering (status.rendered), with
 * the creation time that decides who keeps a clashing name.
 */
public record AcceptedRevision(String resource, String createdAt, RenderedConfig rendered) {
  private static final Logger log = LoggerFactory.getLogger(AcceptedRevision.class);

  /** Older first; same age by resource name, so every decision is the same on every run. */
  public static final Comparator<AcceptedRevision> SENIORITY =
      Comparator.comparing(AcceptedRevision::createdAt).thenComparing(AcceptedRevision::resource);

  /**
   * The revision nodes should hold, or empty while the network is new, invalid or deleted, or when
   * status.rendered is damaged: its content does not hash to its sha256. That is a corruption check
   * (a truncated or hand-edited status), not proof that the operator made the content: whoever may
   * write the CniNetwork status can write any self-consistent rendering, so RBAC keeps that right
   * to the operator's ServiceAccount (the chart grants it to nobody else).
   */
  public static Optional<AcceptedRevision> of(CniNetwork network, RevisionIntegrity integrity) {
    if (network.getMetadata().getDeletionTimestamp() != null
        || network.getStatus() == null
        || network.getStatus().getRendered() == null) {
      return Optional.empty();
    }
    RenderedConfig rendered = network.getStatus().getRendered();
    if (!integrity.isIntact(rendered)) {
      log.warn(
          "event=rendered-status-damaged network={} reason=content-does-not-match-sha256",
          network.getMetadata().getName());
      return Optional.empty();
    }
    return Optional.of(withRendering(network, rendered));
  }

  /**
   * The revision {@code node} should hold of {@code network} as its status stands, or empty when it
   * holds none ({@link #of}).
   *
   * @param held the node's CniNode spec now, null if it has none
   */
  public static Optional<AcceptedRevision> forNode(
      CniNetwork network, String node, CniNodeSpec held, RevisionIntegrity integrity) {
    return of(network, integrity)
        .map(
            current ->
                withRendering(
                    network,
                    forNode(
                        current.resource(),
                        current.rendered(),
                        Placing.of(network.getStatus().getRollout()),
                        node,
                        held,
                        integrity)));
  }

  /**
   * The rendering {@code node} should hold of the network {@code resource} while it rolls out:
   * {@code accepted} once the node is admitted, else the stable one ({@link NodeRevisionChoice}),
   * unless that is damaged (see {@link RevisionIntegrity#isIntact}): then {@code accepted}.
   *
   * @param accepted the network's accepted revision, intact
   * @param rollout the network's rollout, null when there is none
   * @param held the node's CniNode spec now, null if it has none
   */
  public static RenderedConfig forNode(
      String resource,
      RenderedConfig accepted,
      Placing rollout,
      String node,
      CniNodeSpec held,
      RevisionIntegrity integrity) {
    String heldRevision = NodeRevisionChoice.heldRevision(held, resource);
    if (NodeRevisionChoice.of(rollout, node, heldRevision) == NodeRevisionChoice.Choice.REVISION) {
      return accepted;
    }
    RenderedConfig stable = rollout.stable();
    if (stable == null || !integrity.isIntact(stable)) {
      log.warn(
          "event=stable-revision-damaged network={} node={} reason=kept-new-revision",
          resource,
          node);
      return accepted;
    }
    return stable;
  }

  /**
   * The identity of a revision (its status.rendered.sha256): the sha256 of its content, followed
   * when it declares nodeSlices by a line naming them, and when it is appended to another product's
   * network by a line naming that network, so that an edit of spec.nodeSlices or spec.appendTo
   * alone (the same plugins appended instead of written as a network of their own) is a new
   * revision, rolled out in stages.
   *
   * <p>spec.appendAs is not covered, and must not be: an operator of 0.2.0 hashes the fields it
   * knows, and after a rollback would take a revision whose sha256 covered it for damaged and its
   * network off every node; it also cannot read a status.rendered with a field it does not know, so
   * the field is not recorded there either. DesiredNodeSpec reads it from the spec.
   */
  public static String identity(String content, NodeSlices nodeSlices, String appendTo) {
    StringBuilder covered = new StringBuilder(content);
    if (nodeSlices != null) {
      covered
          .append("\nnodeSlices subnet=")
          .append(nodeSlices.getSubnet())
          .append(" prefixLength=")
          .append(nodeSlices.getPrefixLength());
    }
    if (appendTo != null) {
      covered.append("\nappendTo ").append(appendTo);
    }
    return contentSha256(covered.toString());
  }

  private static String contentSha256(String content) {
    return Sha256.hex(content.getBytes(StandardCharsets.UTF_8));
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

  /** Whether this revision's plugins are appended to another product's network (appendTo). */
  public boolean appended() {
    return rendered.getAppendTo() != null;
  }
}
