package dev.cnioperator.operator.network;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.reasons.ConditionStamp;
import dev.cnioperator.api.reasons.ConditionType;
import dev.cnioperator.api.v1alpha1.AppendedPlugins;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkDefaults;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeCounts;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.operator.metrics.OperatorMetrics;
import dev.cnioperator.operator.multus.AttachmentReport;
import dev.cnioperator.operator.placement.Clash;
import dev.cnioperator.operator.template.NodeTemplate;
import dev.cnioperator.runtime.text.CappedList;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Folds what the operator decided (rendering, placement, rollout, slices, a Multus network's
 * definitions) and what the agents report (CniNode status) into the whole CniNetwork status: counts
 * and every condition (Accepted, Ready, Degraded, RolledOut, PluginsAppended,
 * AttachmentDefinitions). The one place a network's status is built.
 */
public final class NetworkStatusFolder {

  /**
   * The selected nodes' reports, sorted by what they say about the accepted revision. A node is
   * healthy when it holds what it should, its agent proved that content (the probe passed) and no
   * attachment there fails CHECK: pods of the network can start there.
   */
  private record Tally(
      List<NodeReport> selected,
      List<NodeReport> applied,
      List<NodeReport> proven,
      List<NodeReport> healthy,
      List<NodeReport> failedApply,
      List<NodeReport> failedProbe,
      List<NodeReport> failingPods,
      List<NodeReport> waiting) {

    static Tally of(List<NodeReport> reports, RenderedConfig accepted) {
      List<NodeReport> applied = reports.stream().filter(r -> holds(r, accepted)).toList();
      List<NodeReport> proven = applied.stream().filter(r -> probe(r, ProbeResult.Passed)).toList();
      return new Tally(
          reports,
          applied,
          proven,
          proven.stream().filter(r -> failing(r).isEmpty()).toList(),
          reports.stream()
              .filter(r -> r.waitingFor() == null && NetworkStatusFolder.failedApply(r))
              .toList(),
          applied.stream().filter(r -> probe(r, ProbeResult.Failed)).toList(),
          reports.stream().filter(r -> !failing(r).isEmpty()).toList(),
          reports.stream().filter(r -> r.waitingFor() != null).toList());
    }

    /** Attachments the agents of applied nodes could not CHECK. */
    int unchecked() {
      return applied.stream().mapToInt(NetworkStatusFolder::unchecked).sum();
    }
  }

  /**
   * What a network's status is folded from: the operator's decisions for the current generation and
   * its nodes' reports.
   *
   * @param rendering the outcome for the current generation
   * @param accepted the revision nodes hold (new, or kept from before), null when none ever was
   * @param reports one per node the network is placed on
   * @param clashes node name to the clash that keeps the network off it
   * @param rollout the rollout of {@code accepted}, null when nothing was ever accepted
   * @param slices each node's slice of spec.nodeSlices, empty when it declares none
   * @param definitions a Multus network's NetworkAttachmentDefinitions, empty for other networks
   */
  public record Input(
      Rendering rendering,
      RenderedConfig accepted,
      List<NodeReport> reports,
      Map<String, Clash> clashes,
      RolloutStatus rollout,
      List<NodeSlice> slices,
      Optional<AttachmentReport> definitions) {}

  /**
   * A status as folded, with what its Accepted, Ready and Degraded conditions say, for metrics and
   * logs.
   */
  public record Folded(CniNetworkStatus status, OperatorMetrics.NetworkHealth health) {}

  /** The whole status {@code network} should have, every condition included. */
  public Folded fold(CniNetwork network, Input in, Instant now) {
    long generation = network.getMetadata().getGeneration();
    ConditionStamp stamp =
        new ConditionStamp(
            network.getStatus() == null ? List.of() : network.getStatus().getConditions(),
            generation,
            now);
    RenderedConfig accepted = in.accepted();
    Tally tally = Tally.of(in.reports(), accepted);
    Condition acceptedCondition = accepted(stamp, in.rendering(), accepted, in.clashes());
    Condition nodesReady =
        ready(stamp, in.rendering(), accepted, tally, in.rollout(), proof(network, accepted));
    Condition ready =
        in.definitions()
            .map(d -> AttachmentDefinitionsCondition.ready(stamp, nodesReady, d))
            .orElse(nodesReady);
    Condition degraded = degraded(stamp, tally);
    List<Condition> conditions = new ArrayList<>();
    conditions.addAll(
        List.of(acceptedCondition, ready, degraded, RolloutCondition.of(stamp::set, in.rollout())));
    in.definitions()
        .map(d -> AttachmentDefinitionsCondition.of(stamp, d))
        .ifPresent(conditions::add);
    conditions.add(
        pluginsAppended(
            stamp,
            in.reports(),
            network.getSpec() == null ? null : network.getSpec().getAppendTo()));
    CniNetworkStatus status =
        new CniNetworkStatus()
            .setObservedGeneration(generation)
            .setNetworkName(
                accepted != null
                    ? accepted.getNetworkName()
                    : NetworkRenderer.conflistName(network))
            .setRendered(accepted)
            .setRollout(in.rollout())
            .setNodes(
                new NodeCounts()
                    .setSelected(in.reports().size())
                    .setApplied(tally.applied().size())
                    .setHealthy(tally.healthy().size())
                    .setUncheckedAttachments(tally.unchecked() == 0 ? null : tally.unchecked())
                    .setReady(tally.healthy().size() + "/" + in.reports().size()))
            .setConditions(conditions)
            .setSlices(in.slices().isEmpty() ? null : in.slices())
            .setAttachmentDefinitions(
                in.definitions()
                    .map(AttachmentReport::namespaces)
                    .filter(n -> !n.isEmpty())
                    .orElse(null));
    return new Folded(
        status,
        new OperatorMetrics.NetworkHealth(
            Conditions.isTrue(acceptedCondition),
            Conditions.isTrue(ready),
            Conditions.isTrue(degraded)));
  }

  private static Condition accepted(
      ConditionStamp stamp,
      Rendering rendering,
      RenderedConfig accepted,
      Map<String, Clash> clashes) {
    ConditionType type = ConditionType.ACCEPTED;
    if (rendering instanceof Rendering.Refused refused) {
      String kept =
          accepted == null
              ? "; nothing is written to any node"
              : "; nodes keep generation " + accepted.getGeneration();
      return stamp.set(type, false, refused.reason(), refused.message() + kept);
    }
    if (!clashes.isEmpty()) {
      String message =
          clashes.values().iterator().next().describe()
              + " on "
              + CappedList.names(List.copyOf(clashes.keySet()))
              + "; the older one keeps it and this network is not written there";
      return stamp.set(type, false, ConditionReason.CONFLICT, message);
    }
    return stamp.set(
        type,
        true,
        ConditionReason.ACCEPTED,
        "rendered " + renderedWhat(accepted) + " (sha256 " + shortSha(accepted) + ")");
  }

  /** What a revision is: its file, or for an appended one no file but entries of another's. */
  private static String renderedWhat(RenderedConfig accepted) {
    return accepted.getAppendTo() == null
        ? accepted.getFileName()
        : "plugins to append to network \"" + accepted.getAppendTo() + "\"";
  }

  private static Condition ready(
      ConditionStamp stamp,
      Rendering rendering,
      RenderedConfig accepted,
      Tally tally,
      RolloutStatus rollout,
      String proof) {
    ConditionType type = ConditionType.READY;
    if (rendering instanceof Rendering.Refused) {
      String kept = accepted == null ? "" : "; nodes keep generation " + accepted.getGeneration();
      return stamp.set(
          type,
          false,
          ConditionReason.NOT_ACCEPTED,
          "generation " + stamp.generation() + " is not accepted (see Accepted)" + kept);
    }
    int selected = tally.selected().size();
    if (selected == 0) {
      return stamp.set(
          type,
          false,
          ConditionReason.NO_NODES_SELECTED,
          "spec.nodeSelector selects no node that can hold it");
    }
    String holding =
        tally.applied().size()
            + "/"
            + selected
            + " nodes hold "
            + (NodeTemplate.isTemplate(accepted.getContent())
                ? "their rendering of template sha256 "
                : "sha256 ")
            + shortSha(accepted)
            + heldBack(rollout);
    if (!tally.failedApply().isEmpty()) {
      return stamp.set(
          type, false, ConditionReason.APPLY_FAILED, applyFailures(tally.failedApply()));
    }
    if (!tally.failedProbe().isEmpty()) {
      return stamp.set(type, false, ConditionReason.PROBE_FAILED, probeFailures(tally));
    }
    if (tally.healthy().size() == selected) {
      return stamp.set(
          type,
          true,
          ConditionReason.READY,
          holding + ", proven by " + proof + ", no failing attachments" + unchecked(tally));
    }
    if (!tally.waiting().isEmpty()) {
      return stamp.set(
          type,
          false,
          ConditionReason.WAITING_FOR_NODE_VALUES,
          tally.waiting().size()
              + " of "
              + selected
              + " nodes lack a value the network uses and do not get it: "
              + CappedList.lines(tally.waiting().stream().map(NodeReport::waitingFor).toList()));
    }
    if (tally.applied().size() == selected && !tally.failingPods().isEmpty()) {
      return stamp.set(
          type,
          false,
          ConditionReason.ATTACHMENTS_FAILING,
          attachmentFailures(tally.failingPods()));
    }
    if (tally.applied().size() == selected) {
      List<String> unproven = nodesNotIn(tally.applied(), tally.proven());
      return stamp.set(
          type,
          false,
          ConditionReason.PROVING,
          holding + "; waiting for the proof (" + proof + ") from " + CappedList.names(unproven));
    }
    List<String> waiting = nodesNotIn(tally.selected(), tally.applied());
    return stamp.set(
        type,
        false,
        ConditionReason.APPLYING,
        holding + "; waiting for " + CappedList.names(waiting));
  }

  /**
   * The nodes of the reports in {@code all} and not in {@code some}, a sublist of it: a set of the
   * very report objects, so a condition of a large cluster costs O(nodes), not O(nodes²).
   */
  private static List<String> nodesNotIn(List<NodeReport> all, List<NodeReport> some) {
    Set<NodeReport> in = Collections.newSetFromMap(new IdentityHashMap<>());
    in.addAll(some);
    return all.stream().filter(r -> !in.contains(r)).map(NodeReport::node).toList();
  }

  /**
   * What Ready rests on: the probe attachment, or only STATUS and the CHECK of live ones; CHECK
   * named only where the agent runs it (cniVersion 0.4.0 and later, no disableCheck).
   */
  private static String proof(CniNetwork network, RenderedConfig accepted) {
    String noCheck = noCheck(network, accepted);
    if (probeAttachment(network)) {
      return noCheck == null
          ? "a probe attachment: ADD, CHECK, DEL"
          : "a probe attachment: ADD, DEL (no CHECK: " + noCheck + ")";
    }
    String without =
        ": spec.rollout.probe.enabled is false, so an ADD that cannot succeed is not seen";
    return noCheck == null
        ? "STATUS and a CHECK of the live attachments only" + without
        : "no probe attachment and no CHECK (" + noCheck + ")" + without;
  }

  /** Why the agent runs no CHECK of this network, or null when it does. */
  private static String noCheck(CniNetwork network, RenderedConfig accepted) {
    if (accepted != null
        && accepted.getCniVersion() != null
        && !accepted.getCniVersion().version().supportsCheck()) {
      return "cniVersion " + accepted.getCniVersion().text() + " has none";
    }
    return network.getSpec() != null && Boolean.TRUE.equals(network.getSpec().getDisableCheck())
        ? "spec.disableCheck is true"
        : null;
  }

  private static boolean probeAttachment(CniNetwork network) {
    return CniNetworkDefaults.probeEnabled(
        network.getSpec() == null || network.getSpec().getRollout() == null
            ? null
            : network.getSpec().getRollout().getProbe());
  }

  /** "; 3 attachments not checked (node-a: why)", or nothing when every one was checked. */
  private static String unchecked(Tally tally) {
    int count = tally.unchecked();
    if (count == 0) {
      return "";
    }
    List<String> why =
        tally.applied().stream()
            .filter(r -> unchecked(r) > 0)
            .map(r -> r.node() + ": " + r.report().getAttachments().getUncheckedReason())
            .toList();
    return "; "
        + count
        + " attachment(s) not checked, neither healthy nor failing ("
        + CappedList.lines(why)
        + ")";
  }

  /** While a rollout holds nodes back, they count as holding what they should: the stable one. */
  private static String heldBack(RolloutStatus rollout) {
    boolean split =
        rollout != null
            && rollout.getStableRevision() != null
            && !rollout.getStableRevision().equals(rollout.getRevision());
    return split
        ? " or, held back by the rollout, stable revision "
            + rollout.getStableRevision().substring(0, 12)
        : "";
  }

  private static Condition degraded(ConditionStamp stamp, Tally tally) {
    ConditionType type = ConditionType.DEGRADED;
    if (!tally.failedApply().isEmpty()) {
      return stamp.set(
          type, true, ConditionReason.APPLY_FAILED, applyFailures(tally.failedApply()));
    }
    if (!tally.failedProbe().isEmpty()) {
      return stamp.set(type, true, ConditionReason.PROBE_FAILED, probeFailures(tally));
    }
    if (!tally.failingPods().isEmpty()) {
      return stamp.set(
          type, true, ConditionReason.ATTACHMENTS_FAILING, attachmentFailures(tally.failingPods()));
    }
    return stamp.set(type, false, ConditionReason.AS_EXPECTED, "no node reports a failure");
  }

  /**
   * Whether another installer appended plugins to the network's file on some node (a mesh's CNI
   * chaining in): not a failure, so not Degraded, but a user must be able to see who else runs in
   * the network's chain.
   */
  private static Condition pluginsAppended(
      ConditionStamp stamp, List<NodeReport> reports, String appendTo) {
    Map<String, List<String>> nodesByTypes = new TreeMap<>();
    for (NodeReport r : reports) {
      AppendedPlugins a = r.report() == null ? null : r.report().getAppendedPlugins();
      if (a != null && a.getTypes() != null && !a.getTypes().isEmpty()) {
        nodesByTypes
            .computeIfAbsent(String.join(", ", a.getTypes()), k -> new ArrayList<>())
            .add(r.node());
      }
    }
    ConditionType type = ConditionType.PLUGINS_APPENDED;
    if (appendTo != null) {
      // Its plugins are the ones appended, to a file of another product's.
      return stamp.set(
          type,
          false,
          ConditionReason.OWN_PLUGINS_ONLY,
          "this network has no file of its own: its plugins are appended to network "
              + appendTo
              + "'s");
    }
    if (nodesByTypes.isEmpty()) {
      return stamp.set(
          type,
          false,
          ConditionReason.OWN_PLUGINS_ONLY,
          "no node reports plugins another installer appended to this network's file");
    }
    List<String> lines = new ArrayList<>();
    nodesByTypes.forEach((types, nodes) -> lines.add(types + " on " + CappedList.names(nodes)));
    return stamp.set(
        type,
        true,
        ConditionReason.PLUGINS_APPENDED,
        "another installer appended plugins after this network's own in its file; they are kept,"
            + " and carried into each new revision: "
            + CappedList.lines(lines));
  }

  private static boolean holds(NodeReport r, RenderedConfig accepted) {
    return accepted != null
        && r.report() != null
        && r.report().getState() == NetworkState.Applied
        && r.report().getAppliedSha256() != null
        && r.report().getAppliedSha256().equals(r.expectedSha256(accepted.getSha256()));
  }

  private static boolean failedApply(NodeReport r) {
    return r.report() != null
        && (r.report().getState() == NetworkState.Failed
            || r.report().getState() == NetworkState.Conflict
            || r.report().getState() == NetworkState.Contested);
  }

  /** The agent's probe of the content the node holds ended with {@code result}. */
  private static boolean probe(NodeReport r, ProbeResult result) {
    return r.report().probeOfContent().equals(Optional.of(result));
  }

  private static int unchecked(NodeReport r) {
    AttachmentSummary a = r.report() == null ? null : r.report().getAttachments();
    return a == null || a.getUnchecked() == null ? 0 : a.getUnchecked();
  }

  private static List<FailingAttachment> failing(NodeReport r) {
    NodeNetworkStatus s = r.report();
    if (s == null || s.getAttachments() == null || s.getAttachments().getFailing() == null) {
      return List.of();
    }
    return s.getAttachments().getFailing();
  }

  private static String applyFailures(List<NodeReport> failed) {
    return CappedList.lines(
        failed.stream()
            .map(r -> r.node() + ": " + r.report().getState() + ": " + r.report().getMessage())
            .toList());
  }

  private static String probeFailures(Tally tally) {
    List<NodeReport> failed = tally.failedProbe();
    return failed.size()
        + "/"
        + tally.selected().size()
        + " nodes cannot attach a pod to this network (their agent's probe attachment fails): "
        + CappedList.lines(
            failed.stream()
                .map(r -> r.node() + ": " + r.report().getProbe().getMessage())
                .toList());
  }

  private static String attachmentFailures(List<NodeReport> failingPods) {
    List<String> lines = new ArrayList<>();
    for (NodeReport r : failingPods) {
      for (FailingAttachment a : failing(r)) {
        lines.add(
            r.node()
                + ": pod "
                + a.getNamespace()
                + "/"
                + a.getPod()
                + " ("
                + a.getIfName()
                + "): "
                + a.getError());
      }
    }
    return CappedList.lines(lines);
  }

  private static String shortSha(RenderedConfig accepted) {
    return accepted.getSha256().substring(0, 12);
  }
}
