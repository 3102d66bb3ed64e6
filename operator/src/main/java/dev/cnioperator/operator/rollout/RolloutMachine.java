package dev.cnioperator.operator.rollout;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.RolloutFailure;
import dev.cnioperator.api.v1alpha1.RolloutFailurePolicy;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Decides the next status.rollout of a network from the previous one and what the nodes hold and
 * report: which batch is admitted to the new revision, when it counts as proven, and whether a
 * failed probe pauses or rolls back. Pure: the same input always gives the same step.
 *
 * <p>Rules: a network no node held before (no stable revision) goes to every selected node at once.
 * An edit of a network that never completed a rollout starts from the revision its nodes were given
 * last, marked unproven, and a failure rolls back to that one. Otherwise nodes are admitted in
 * batches (the canary batch first, then maxNodes), the next only once every admitted node has
 * proven the revision and pauseSeconds have passed; nodes that hold a revision of a superseded
 * rollout are admitted first, since they have been changed already. A node that joins mid-rollout
 * holds the stable revision until its turn. A failed probe of an admitted node stops admitting;
 * with Rollback every node not holding the stable revision gets it back. A changed revision starts
 * a new rollout from the last stable one.
 */
public final class RolloutMachine {

  private RolloutMachine() {}

  /**
   * What the machine reads.
   *
   * @param revision the accepted rendering now: the revision to roll out
   * @param previousRendered status.rendered before this step, null if there was none
   * @param previous status.rollout before this step, null if there was none
   * @param nodes every node the revision selects and can be rendered for
   * @param deadline how long the nodes of a batch have to prove the revision; zero: no limit
   */
  public record Input(
      RenderedConfig revision,
      RenderedConfig previousRendered,
      RolloutStatus previous,
      BatchSize batchSize,
      RolloutFailurePolicy onFailure,
      Duration pause,
      Duration deadline,
      List<NodeProgress> nodes,
      Instant now) {}

  /** The next status.rollout, and when to look again if only time can move it on. */
  public record Step(RolloutStatus status, Optional<Duration> recheckAfter) {}

  public static Step next(Input in) {
    RolloutStatus start = start(in);
    RolloutStatus status =
        switch (start.getPhase()) {
          case Complete, RolledBack -> start;
          case Progressing, Paused -> null;
        };
    if (status != null) {
      return new Step(counted(status, in.nodes()), Optional.empty());
    }
    return progress(in, start);
  }

  /** The rollout this step continues, or a new one when the revision changed. */
  private static RolloutStatus start(Input in) {
    String revision = in.revision().getSha256();
    RolloutStatus previous = in.previous();
    if (previous != null && revision.equals(previous.getRevision())) {
      return copy(previous);
    }
    Base base = base(in);
    if (base == null || base.rendering().getSha256().equals(revision)) {
      // Nothing to protect, or back to the base itself: every node takes it now. Complete at once
      // only when that base was proven; otherwise its nodes prove it as a new network's do.
      boolean proven = base != null && base.proven();
      return new RolloutStatus()
          .setRevision(revision)
          .setStableRevision(proven ? revision : null)
          .setPhase(proven ? RolloutPhase.Complete : RolloutPhase.Progressing)
          .setBatch(List.of());
    }
    return new RolloutStatus()
        .setRevision(revision)
        .setStableRevision(base.rendering().getSha256())
        .setStable(base.rendering())
        .setStableUnproven(base.proven() ? null : true)
        .setPhase(RolloutPhase.Progressing)
        .setBatch(List.of());
  }

  /** What a new rollout starts from, and whether every node proved it. */
  private record Base(RenderedConfig rendering, boolean proven) {}

  /**
   * The last revision every node held and proved; when the network never completed a rollout, the
   * revision its nodes were given last, unproven. A rollback returns to that one too: the edit that
   * failed is known to fail, the revision before it is what the nodes held and their pods were
   * added with, and the status says it was never proven. Null when nothing was ever given out.
   */
  private static Base base(Input in) {
    RolloutStatus previous = in.previous();
    boolean completed = previous != null && previous.getPhase() == RolloutPhase.Complete;
    if (previous != null && !completed && previous.getStable() != null) {
      return new Base(previous.getStable(), !Boolean.TRUE.equals(previous.getStableUnproven()));
    }
    // Only a completed rollout proved status.rendered on every node.
    return in.previousRendered() == null ? null : new Base(in.previousRendered(), completed);
  }

  private static Step progress(Input in, RolloutStatus status) {
    List<NodeProgress> nodes = in.nodes();
    if (nodes.isEmpty()) {
      // Nothing has proven the revision: it must not become the stable one by default. A rollout
      // without nodes waits for one (which is then the canary, or takes a new network at once).
      return new Step(counted(status, nodes), Optional.empty());
    }
    Set<String> batch = new TreeSet<>(Objects.requireNonNullElse(status.getBatch(), List.of()));
    boolean everyone = status.getStableRevision() == null;
    List<NodeProgress> admitted =
        nodes.stream()
            .filter(n -> everyone || n.holdsRevision() || batch.contains(n.node()))
            .toList();
    Optional<NodeProgress> failed = admitted.stream().filter(NodeProgress::failedProbe).findFirst();
    if (failed.isPresent()) {
      NodeProgress node = failed.get();
      return new Step(
          counted(
              failure(in, status, node.node(), ConditionReason.PROBE_FAILED, node.message(), true),
              nodes),
          Optional.empty());
    }
    status.setPhase(RolloutPhase.Progressing);
    status.setFailure(null);
    if (!admitted.stream().allMatch(NodeProgress::proven)) {
      return waiting(in, status, admitted);
    }
    Set<String> admittedNames =
        admitted.stream().map(NodeProgress::node).collect(Collectors.toSet());
    List<NodeProgress> pending =
        nodes.stream().filter(n -> !admittedNames.contains(n.node())).toList();
    if (pending.isEmpty()) {
      return new Step(counted(complete(status), nodes), Optional.empty());
    }
    if (admitted.isEmpty()) {
      return new Step(counted(admit(in, status, pending, true), nodes), Optional.empty());
    }
    Instant passedAt =
        status.getBatchPassedTime() == null
            ? seconds(in.now())
            : Instant.parse(status.getBatchPassedTime());
    Instant nextAt = passedAt.plus(in.pause());
    if (in.now().isBefore(nextAt)) {
      status.setBatchPassedTime(passedAt.toString());
      return new Step(counted(status, nodes), Optional.of(Duration.between(in.now(), nextAt)));
    }
    return new Step(counted(admit(in, status, pending, false), nodes), Optional.empty());
  }

  /** Admits the next batch from {@code pending}: changed nodes first, then by name. */
  private static RolloutStatus admit(
      Input in, RolloutStatus status, List<NodeProgress> pending, boolean first) {
    int size = in.batchSize().next(in.nodes().size(), first);
    List<String> next =
        pending.stream()
            .sorted(
                Comparator.comparing((NodeProgress n) -> n.holding() != NodeProgress.Holding.OTHER)
                    .thenComparing(NodeProgress::node))
            .limit(size)
            .map(NodeProgress::node)
            .sorted()
            .toList();
    status.setBatch(next);
    status.setBatchStartTime(seconds(in.now()).toString());
    status.setBatchPassedTime(null);
    return status;
  }

  /**
   * Some admitted node has not proven the revision yet: wait for it, up to the batch's deadline.
   * Past it, the rollout pauses naming the first silent node. Silence is no proof that the revision
   * is bad (the node may be down), so it never rolls back; the node's report resumes the rollout.
   */
  private static Step waiting(Input in, RolloutStatus status, List<NodeProgress> admitted) {
    if (in.deadline().isZero()) {
      return new Step(counted(status, in.nodes()), Optional.empty());
    }
    Instant started =
        status.getBatchStartTime() == null
            ? seconds(in.now())
            : Instant.parse(status.getBatchStartTime());
    status.setBatchStartTime(started.toString());
    Instant due = started.plus(in.deadline());
    if (in.now().isBefore(due)) {
      return new Step(counted(status, in.nodes()), Optional.of(Duration.between(in.now(), due)));
    }
    List<String> silent =
        admitted.stream().filter(n -> !n.proven()).map(NodeProgress::node).toList();
    String message =
        "no report on the revision within "
            + in.deadline().toSeconds()
            + " s of the batch's start ("
            + started
            + ")"
            + (silent.size() > 1 ? ", nor from " + (silent.size() - 1) + " more node(s)" : "")
            + "; is the node's agent running?";
    return new Step(
        counted(
            failure(in, status, silent.get(0), ConditionReason.NO_REPORT, message, false),
            in.nodes()),
        Optional.empty());
  }

  /**
   * A node failed to prove the revision: roll back (when {@code mayRollBack} and the policy says
   * so), or pause (also when there is nothing to roll back to).
   */
  private static RolloutStatus failure(
      Input in,
      RolloutStatus status,
      String node,
      ConditionReason reason,
      String message,
      boolean mayRollBack) {
    RolloutFailure previous = status.getFailure();
    boolean same =
        previous != null
            && node.equals(previous.getNode())
            && reason.is(previous.getReason())
            && Objects.equals(message, previous.getMessage());
    status.setFailure(
        same
            ? previous
            : new RolloutFailure()
                .setNode(node)
                .setRevision(status.getRevision())
                .setReason(reason.wire())
                .setMessage(message)
                .setTime(seconds(in.now()).toString()));
    boolean rollback =
        mayRollBack
            && in.onFailure() == RolloutFailurePolicy.Rollback
            && status.getStableRevision() != null;
    if (rollback) {
      status.setPhase(RolloutPhase.RolledBack);
      status.setBatch(List.of());
      status.setBatchPassedTime(null);
    } else {
      status.setPhase(RolloutPhase.Paused);
    }
    return status;
  }

  private static RolloutStatus complete(RolloutStatus status) {
    return status
        .setPhase(RolloutPhase.Complete)
        .setStableRevision(status.getRevision())
        .setStable(null)
        .setStableUnproven(null)
        .setBatch(List.of())
        .setBatchPassedTime(null)
        .setFailure(null);
  }

  private static RolloutStatus counted(RolloutStatus status, List<NodeProgress> nodes) {
    int updated = (int) nodes.stream().filter(NodeProgress::proven).count();
    return status
        .setSelectedNodes(nodes.size())
        .setUpdatedNodes(updated)
        .setUpdated(updated + "/" + nodes.size());
  }

  private static RolloutStatus copy(RolloutStatus s) {
    return new RolloutStatus()
        .setRevision(s.getRevision())
        .setStableRevision(s.getStableRevision())
        .setStable(s.getStable())
        .setStableUnproven(s.getStableUnproven())
        .setPhase(Objects.requireNonNullElse(s.getPhase(), RolloutPhase.Progressing))
        .setBatch(s.getBatch() == null ? List.of() : List.copyOf(s.getBatch()))
        .setBatchStartTime(s.getBatchStartTime())
        .setBatchPassedTime(s.getBatchPassedTime())
        .setFailure(s.getFailure());
  }

  private static Instant seconds(Instant now) {
    return now.truncatedTo(ChronoUnit.SECONDS);
  }
}
