package dev.cnioperator.agent.node;

import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.NetworkHealth;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import java.util.List;
import java.util.Map;

/**
 * What follows a node pass on each network (its proof, CHECK, cleanup and STATUS) and what that
 * found, for the status. The node pass only says what it applied; the network owners do the rest.
 */
public interface NetworkFollowUp {
  /**
   * Tells of a node pass and starts the work now due on the networks it applied.
   *
   * @param current the networks of the spec the pass applied; a network gone from it is forgotten
   * @param applied those of them whose files the pass applied: only they get proof, CHECK and
   *     cleanup
   * @param reported the probe reports of the CniNode status, by network: a network met for the
   *     first time since the agent started takes its report back, so that content proven before a
   *     restart is not probed again
   * @param statusChanged asked for when work on a network ends
   * @return true when some of that work is under way and will ask for {@code statusChanged}
   */
  boolean afterPass(
      List<ManagedNetwork> current,
      List<ManagedNetwork> applied,
      Map<String, ProbeReport> reported,
      Runnable statusChanged);

  /** What the work last found on {@code network}; {@link NetworkHealth#UNKNOWN} before anything. */
  NetworkHealth health(String network);
}
