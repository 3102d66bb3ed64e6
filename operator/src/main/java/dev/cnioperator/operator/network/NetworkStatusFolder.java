package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeCounts;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.operator.placement.Clash;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Folds what the operator decided (rendering, placement) and what the agents report (CniNode
 * status) into a CniNetwork status: counts and the Accepted, Ready and Degraded conditions.
 */
public final class NetworkStatusFolder {

  private static final int MAX_LISTED = 5;

  /**
   * The status {@code network} should have.
   *
   * @param rendering the outcome for the current generation
   * @param accepted the revision nodes hold (new, or kept from before), null when none ever was
   * @param reports one per node the network is placed on
   * @param clashes node name to the clash that keeps the network off it
   */
  public CniNetworkStatus fold(
      CniNetwork network,
      Rendering rendering,
      RenderedConfig accepted,
      List<NodeReport> reports,
      Map<String, Clash> clashes,
      Instant now) {
    long generation = network.getMetadata().getGeneration();
    List<Condition> previous =
        network.getStatus() == null ? List.of() : network.getStatus().getConditions();
    List<NodeReport> applied = reports.stream().filter(r -> holds(r, accepted)).toList();
    List<NodeReport> healthy = applied.stream().filter(r -> failing(r).isEmpty()).toList();
    List<NodeReport> failedApply =
        reports.stream().filter(NetworkStatusFolder::failedApply).toList();
    List<NodeReport> failingPods = reports.stream().filter(r -> !failing(r).isEmpty()).toList();

    List<Condition> conditions = new ArrayList<>();
    conditions.add(accepted(previous, rendering, accepted, clashes, generation, now));
    conditions.add(
        ready(
            previous,
            rendering,
            accepted,
            reports,
            applied,
            healthy,
            failedApply,
            failingPods,
            generation,
            now));
    conditions.add(degraded(previous, failedApply, failingPods, generation, now));

    return new CniNetworkStatus()
        .withObservedGeneration(generation)
        .withNetworkName(accepted != null ? accepted.getNetworkName() : network.networkName())
        .withRendered(accepted)
        .withNodes(
            new NodeCounts()
                .withSelected(reports.size())
                .withApplied(applied.size())
                .withHealthy(healthy.size())
                .withReady(healthy.size() + "/" + reports.size()))
        .withConditions(conditions);
  }

  private static Condition accepted(
      List<Condition> previous,
      Rendering rendering,
      RenderedConfig accepted,
      Map<String, Clash> clashes,
      long generation,
      Instant now) {
    if (rendering instanceof Rendering.Refused refused) {
      String kept =
          accepted == null
              ? "; nothing is written to any node"
              : "; nodes keep generation " + accepted.getGeneration();
      return Conditions.next(
          previous,
          Conditions.ACCEPTED,
          false,
          refused.reason(),
          refused.message() + kept,
          generation,
          now);
    }
    if (!clashes.isEmpty()) {
      Clash first = clashes.values().iterator().next();
      String message =
          first.describe()
              + " on "
              + listed(List.copyOf(clashes.keySet()))
              + "; the older one keeps it and this network is not written there";
      return Conditions.next(
          previous, Conditions.ACCEPTED, false, "Conflict", message, generation, now);
    }
    return Conditions.next(
        previous,
        Conditions.ACCEPTED,
        true,
        "Accepted",
        "rendered " + accepted.getFileName() + " (sha256 " + shortSha(accepted) + ")",
        generation,
        now);
  }

  private static Condition ready(
      List<Condition> previous,
      Rendering rendering,
      RenderedConfig accepted,
      List<NodeReport> reports,
      List<NodeReport> applied,
      List<NodeReport> healthy,
      List<NodeReport> failedApply,
      List<NodeReport> failingPods,
      long generation,
      Instant now) {
    String type = Conditions.READY;
    if (rendering instanceof Rendering.Refused) {
      String message =
          accepted == null
              ? "generation " + generation + " is not accepted (see Accepted)"
              : "generation "
                  + generation
                  + " is not accepted (see Accepted); nodes keep generation "
                  + accepted.getGeneration();
      return Conditions.next(previous, type, false, "NotAccepted", message, generation, now);
    }
    if (reports.isEmpty()) {
      return Conditions.next(
          previous,
          type,
          false,
          "NoNodesSelected",
          "spec.nodeSelector selects no node that can hold it",
          generation,
          now);
    }
    String holding =
        applied.size() + "/" + reports.size() + " nodes hold sha256 " + shortSha(accepted);
    if (!failedApply.isEmpty()) {
      return Conditions.next(
          previous, type, false, "ApplyFailed", applyFailures(failedApply), generation, now);
    }
    if (healthy.size() == reports.size()) {
      return Conditions.next(
          previous, type, true, "Ready", holding + ", no failing attachments", generation, now);
    }
    if (applied.size() == reports.size()) {
      return Conditions.next(
          previous,
          type,
          false,
          "AttachmentsFailing",
          attachmentFailures(failingPods),
          generation,
          now);
    }
    List<String> waiting =
        reports.stream().filter(Predicate.not(applied::contains)).map(NodeReport::node).toList();
    return Conditions.next(
        previous,
        type,
        false,
        "Applying",
        holding + "; waiting for " + listed(waiting),
        generation,
        now);
  }

  private static Condition degraded(
      List<Condition> previous,
      List<NodeReport> failedApply,
      List<NodeReport> failingPods,
      long generation,
      Instant now) {
    String type = Conditions.DEGRADED;
    if (!failedApply.isEmpty()) {
      return Conditions.next(
          previous, type, true, "ApplyFailed", applyFailures(failedApply), generation, now);
    }
    if (!failingPods.isEmpty()) {
      return Conditions.next(
          previous,
          type,
          true,
          "AttachmentsFailing",
          attachmentFailures(failingPods),
          generation,
          now);
    }
    return Conditions.next(
        previous, type, false, "AsExpected", "no node reports a failure", generation, now);
  }

  private static boolean holds(NodeReport r, RenderedConfig accepted) {
    return accepted != null
        && r.report() != null
        && r.report().getState() == NetworkState.Applied
        && accepted.getSha256().equals(r.report().getAppliedSha256());
  }

  private static boolean failedApply(NodeReport r) {
    return r.report() != null
        && (r.report().getState() == NetworkState.Failed
            || r.report().getState() == NetworkState.Conflict);
  }

  private static List<FailingAttachment> failing(NodeReport r) {
    NodeNetworkStatus s = r.report();
    if (s == null || s.getAttachments() == null || s.getAttachments().getFailing() == null) {
      return List.of();
    }
    return s.getAttachments().getFailing();
  }

  private static String applyFailures(List<NodeReport> failed) {
    return join(
        failed.stream()
            .map(r -> r.node() + ": " + r.report().getState() + ": " + r.report().getMessage())
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
    return join(lines);
  }

  private static String shortSha(RenderedConfig accepted) {
    return accepted.getSha256().substring(0, 12);
  }

  /** "a, b, c and 4 more". */
  static String listed(List<String> names) {
    String shown = String.join(", ", names.subList(0, Math.min(MAX_LISTED, names.size())));
    return names.size() > MAX_LISTED
        ? shown + " and " + (names.size() - MAX_LISTED) + " more"
        : shown;
  }

  private static String join(List<String> lines) {
    String shown = String.join("; ", lines.subList(0, Math.min(MAX_LISTED, lines.size())));
    return lines.size() > MAX_LISTED
        ? shown + "; and " + (lines.size() - MAX_LISTED) + " more"
        : shown;
  }
}
