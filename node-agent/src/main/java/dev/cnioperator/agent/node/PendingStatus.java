package dev.cnioperator.agent.node;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the node loop's next status write waits for and must carry: the reports of the networks the
 * last reconcile asked for a run, and the networks the reconciles took off the node since the last
 * write. Pure bookkeeping of the node loop's thread; {@code NodeAgent} does the writing.
 */
final class PendingStatus {
  /** The number of the last reconcile that got as far as the networks. */
  private long reconciles;

  /** The networks the last reconcile asked for a run that have not reported. */
  private Set<String> awaited = new HashSet<>();

  /**
   * The reconcile that began the wait, 0 while none waits. Later reconciles wait on, but the wait
   * ends {@link NodeAgent#REPORT_WAIT} after the first, so a node whose reconciles come faster than
   * its networks' runs end still gets its status written.
   */
  private long waitingSince;

  /**
   * Only the reconcile that removes a network's files knows it, and a later one may come before the
   * write: each is reported {@code Removed} by the next write all the same.
   */
  private final Set<String> removedUnwritten = new TreeSet<>();

  /**
   * A reconcile took {@code removed} off the node and asks the networks for a run.
   *
   * @return the reconcile's number, which the networks' reports name
   */
  long reconciled(List<String> removed) {
    removedUnwritten.addAll(removed);
    return ++reconciles;
  }

  /**
   * The networks reconcile {@code reconcile} asked for a run.
   *
   * @return true when this begins a wait, whose end {@link #late} is then asked about
   */
  boolean asked(long reconcile, Set<String> networks) {
    awaited = new HashSet<>(networks);
    if (awaited.isEmpty()) {
      waitingSince = 0;
      return false;
    }
    if (waitingSince != 0) {
      return false;
    }
    waitingSince = reconcile;
    return true;
  }

  /** A network's run answered {@code reconcile}; an answer to an earlier one does not count. */
  void reported(String network, long reconcile) {
    if (reconcile == reconciles && awaited.remove(network) && awaited.isEmpty()) {
      waitingSince = 0;
    }
  }

  /** Whether a status write may happen now: no network's report is awaited. */
  boolean writable() {
    return awaited.isEmpty();
  }

  /**
   * The wait begun by {@code reconcile} has lasted long enough: the networks it still waits for,
   * now given up on; empty when that wait has ended.
   */
  Set<String> late(long reconcile) {
    if (reconcile != waitingSince || awaited.isEmpty()) {
      return Set.of();
    }
    Set<String> late = awaited;
    awaited = new HashSet<>();
    waitingSince = 0;
    return late;
  }

  /** The networks taken off the node that the next write reports Removed. */
  List<String> removed() {
    return List.copyOf(removedUnwritten);
  }

  /**
   * The API server holds a status that says Removed for each: the builder carries it from there.
   */
  void written() {
    removedUnwritten.clear();
  }
}
