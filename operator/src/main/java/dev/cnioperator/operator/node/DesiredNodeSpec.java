package dev.cnioperator.operator.node;

import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkDefaults;
import dev.cnioperator.api.v1alpha1.CniNetworkSpec;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniPlugin;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.KnownFields;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodePlugin;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.Rollout;
import dev.cnioperator.api.v1alpha1.RolloutProbe;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.operator.placement.AcceptedRevision;
import dev.cnioperator.operator.placement.LabelSelectors;
import dev.cnioperator.operator.placement.NodePlacement;
import dev.cnioperator.operator.placement.RevisionIntegrity;
import dev.cnioperator.operator.template.NodeConflist;
import dev.cnioperator.operator.template.NodeValues;
import dev.cnioperator.operator.template.RenderersByRevision;
import io.fabric8.kubernetes.api.model.Node;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Computes exactly what one node must hold from every CniNetwork and CniPlugin: the same inputs
 * always give an equal spec, so comparing it with the stored one decides whether to write.
 */
public final class DesiredNodeSpec {

  /** The value of {@link NodePlugin#getSource()} for binaries the agent image carries. */
  public static final String BUNDLED = "bundled";

  private DesiredNodeSpec() {}

  /**
   * The spec of the CniNode of {@code node}, whose spec is {@code held} now (null when it has
   * none): which revision of a network rolling out it gets depends on the one it holds.
   */
  public static CniNodeSpec compute(
      Node node, Collection<CniNetwork> networks, Collection<CniPlugin> plugins, CniNodeSpec held) {
    return compute(
        node, networks, plugins, held, new RenderersByRevision(), new RevisionIntegrity());
  }

  /**
   * As {@link #compute(Node, Collection, Collection, CniNodeSpec)}, reusing {@code renderers} and
   * {@code integrity}, which remember what earlier reconciles read of the same revisions.
   */
  public static CniNodeSpec compute(
      Node node,
      Collection<CniNetwork> networks,
      Collection<CniPlugin> plugins,
      CniNodeSpec held,
      RenderersByRevision renderers,
      RevisionIntegrity integrity) {
    NodeValues values = NodeValues.of(node);
    String nodeName = node.getMetadata().getName();
    Map<String, String> labels = values.labels();
    Map<String, CniNetwork> byName =
        networks.stream()
            .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
    List<AcceptedRevision> candidates =
        networks.stream()
            .map(n -> AcceptedRevision.forNode(n, nodeName, held, integrity))
            .flatMap(Optional::stream)
            .toList();
    List<NodeNetwork> placed = new ArrayList<>();
    TreeSet<String> binaries = new TreeSet<>();
    for (AcceptedRevision r : NodePlacement.onNode(labels, candidates).placed()) {
      CniNetwork resource = byName.get(r.resource());
      if (!KnownFields.unknownFields(resource.getSpec(), "spec").isEmpty()) {
        // Written for a newer operator (a rollback): the node keeps what it holds of it, as it
        // holds it, and gets nothing of it it does not hold (the network's Accepted says why).
        Optional<NodeNetwork> kept = held == null ? Optional.empty() : held.network(r.resource());
        kept.ifPresent(
            n -> {
              placed.add(n);
              if (n.getContent() != null) {
                binaries.addAll(heldBinaries(n));
              }
            });
        continue;
      }
      NodeNetwork network = nodeNetwork(r, resource, values, held, renderers);
      placed.add(network);
      if (network.getContent() != null) {
        binaries.addAll(pluginBinaries(r.rendered()));
      }
    }
    placed.sort(Comparator.comparing(NodeNetwork::getFileName));
    List<NodePlugin> needed =
        binaries.stream().map(b -> nodePlugin(b, labels, plugins, held)).toList();
    return new CniNodeSpec().setNetworks(placed).setPlugins(needed);
  }

  private static NodeNetwork nodeNetwork(
      AcceptedRevision revision,
      CniNetwork resource,
      NodeValues node,
      CniNodeSpec held,
      RenderersByRevision renderers) {
    CniNetworkSpec spec = resource.getSpec();
    // The slice comes from the network's status only: the network's reconciler writes a node's
    // slice there before any node is rendered with it, and a node it has not reached yet waits.
    NodeConflist conflist =
        renderers
            .of(revision.resource(), revision.rendered(), resource.getStatus().getSlices())
            .forNode(node);
    NodeNetwork network =
        conflist instanceof NodeConflist.Ready r
            ? new NodeNetwork().setSha256(r.sha256()).setContent(r.content())
            : new NodeNetwork().setUnavailable(((NodeConflist.Waiting) conflist).message());
    return network
        .setName(revision.resource())
        .setUid(resource.getMetadata().getUid())
        .setFileName(revision.fileName())
        .setCniVersion(revision.rendered().getCniVersion())
        // The API server fills these defaults too; filling them here keeps the spec explicit for
        // the agent and equal to what the server stores, so an unchanged network causes no write.
        .setCheck(CniNetworkDefaults.check(spec.getCheck()))
        .setIpamCleanup(ipamCleanup(revision.rendered(), spec))
        .setRevision(revision.rendered().getSha256())
        .setProbe(probe(revision, resource, held))
        // From the revision the node gets, which may be the stable one while a rollout holds it.
        .setAppendTo(revision.rendered().getAppendTo())
        .setAppendAs(appendAs(revision, resource, held))
        // Absent for other networks: the runtime's directory is the default.
        .setDirectory(spec.isMultus() ? ConfigDirectory.Multus : null)
        // Not part of the revision, as spec.appendAs: every node it selects publishes at once, and
        // a
        // node's entry of a network that does not publish is what it was before the field existed.
        .setPublishDevice(spec.publishesDevices() ? Boolean.TRUE : null);
  }

  /**
   * The spec's cleanup settings with defaults filled in, and cleanup off for a revision appended to
   * another product's network: the attachments of that network are the product's, so the agent must
   * never drive DEL for them, whatever the spec says (see NetworkRenderer on why an explicit
   * spec.ipamCleanup.enabled cannot be refused).
   */
  private static IpamCleanup ipamCleanup(RenderedConfig revision, CniNetworkSpec spec) {
    IpamCleanup cleanup = CniNetworkDefaults.ipamCleanup(spec.getIpamCleanup());
    return revision.getAppendTo() == null ? cleanup : cleanup.setEnabled(false);
  }

  /**
   * The spec's probe setting, except on a node held back on the stable revision during a rollout:
   * it keeps the setting it has. The probe proves a revision as a node takes it, so the setting
   * matters to a node once it is admitted; rewriting every held-back node for it would write each
   * CniNode once more per edit, and move the generation of nodes the rollout has not reached.
   */
  private static RolloutProbe probe(
      AcceptedRevision revision, CniNetwork resource, CniNodeSpec held) {
    RolloutProbe live = probeWithDefaults(resource.getSpec().getRollout());
    return heldBack(revision, resource, held).map(NodeNetwork::getProbe).orElse(live);
  }

  /**
   * DropIn when the spec asks for it and the revision the node gets is appended to another
   * product's network; else absent, InPlace included, so that the entry of a network that does not
   * set spec.appendAs is what it was before the field existed. A node held back on the stable
   * revision during a rollout keeps what it holds, as with the probe setting: its entries stay
   * where they are until it takes the new revision.
   *
   * <p>Not part of the revision ({@link AcceptedRevision#identity}): a change of spec.appendAs
   * alone reaches the nodes as the check and cleanup settings do, once the network's reconciler has
   * observed the spec (NodeRelevantChanges), on every node at once.
   */
  private static AppendPlacement appendAs(
      AcceptedRevision revision, CniNetwork resource, CniNodeSpec held) {
    if (revision.rendered().getAppendTo() == null) {
      return null;
    }
    Optional<NodeNetwork> kept = heldBack(revision, resource, held);
    if (kept.isPresent()) {
      return kept.get().getAppendAs();
    }
    return resource.getSpec().getAppendAs() == AppendPlacement.DropIn
        ? AppendPlacement.DropIn
        : null;
  }

  /**
   * The entry the node holds of {@code revision} when that is the stable revision a rollout holds
   * it back on; empty when the node gets the network's accepted revision, or holds no entry of it.
   */
  private static Optional<NodeNetwork> heldBack(
      AcceptedRevision revision, CniNetwork resource, CniNodeSpec held) {
    String sha = revision.rendered().getSha256();
    // Placed, so the network's rendered status is there and intact (AcceptedRevision.forNode).
    boolean heldBack = !sha.equals(resource.getStatus().getRendered().getSha256());
    if (!heldBack || held == null) {
      return Optional.empty();
    }
    return held.network(revision.resource()).filter(n -> sha.equals(n.getRevision()));
  }

  private static RolloutProbe probeWithDefaults(Rollout rollout) {
    return new RolloutProbe()
        .setEnabled(CniNetworkDefaults.probeEnabled(rollout == null ? null : rollout.getProbe()));
  }

  /**
   * The plugin binaries of a revision, as the operator computed them once when it rendered it; a
   * revision rendered before the operator recorded them is parsed for them.
   */
  private static List<String> pluginBinaries(RenderedConfig revision) {
    if (revision.getPluginBinaries() != null) {
      return revision.getPluginBinaries();
    }
    return NetworkConfigList.parse(
            revision.getContent().getBytes(StandardCharsets.UTF_8), revision.getFileName())
        .pluginBinaries();
  }

  /** The plugin binaries of the conflist a node holds. */
  private static List<String> heldBinaries(NodeNetwork held) {
    return NetworkConfigList.parse(
            held.getContent().getBytes(StandardCharsets.UTF_8), held.getFileName())
        .pluginBinaries();
  }

  /**
   * From the oldest CniPlugin that provides {@code binary} to this node, else bundled. A CniPlugin
   * written for a newer operator (a field this one does not know) changes nothing: the node keeps
   * the entry it holds for the binary, or without one gets the bundled binary.
   */
  private static NodePlugin nodePlugin(
      String binary, Map<String, String> labels, Collection<CniPlugin> plugins, CniNodeSpec held) {
    Optional<CniPlugin> chosen =
        plugins.stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null && p.getSpec() != null)
            .filter(p -> binary.equals(p.getSpec().getBinaryName()))
            .filter(p -> LabelSelectors.matches(p.getSpec().getNodeSelector(), labels))
            .min(
                Comparator.comparing((CniPlugin p) -> p.getMetadata().getCreationTimestamp())
                    .thenComparing(p -> p.getMetadata().getName()));
    NodePlugin bundled = new NodePlugin().setName(binary).setSource(BUNDLED);
    if (chosen.isPresent()
        && !KnownFields.unknownFields(chosen.get().getSpec(), "spec").isEmpty()) {
      return held == null || held.getPlugins() == null
          ? bundled
          : held.getPlugins().stream()
              .filter(p -> binary.equals(p.getName()))
              .findFirst()
              .orElse(bundled);
    }
    return chosen
        .map(
            p ->
                new NodePlugin()
                    .setName(binary)
                    .setSource(p.getMetadata().getName())
                    .setUrl(p.getSpec().getUrl())
                    .setSha256(p.getSpec().getSha256()))
        .orElse(bundled);
  }
}
