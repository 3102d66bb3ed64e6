package dev.cnioperator.agent.node;

import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.NetworkHealth;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The node's networks as the node loop sees them: it tells them what each reconcile applied, and
 * reads what their runs (proof, CHECK, cleanup, STATUS) found. Each network asked for a run answers
 * with a report, naming the reconcile that asked, when a run that began after the asking ends.
 */
public interface NodeNetworks {
  /**
   * Tells the networks of a reconcile and asks each network whose conflist it applied for a run.
   *
   * @param reconcile the reconcile's number, which the reports name: it grows with each reconcile
   * @param current the networks of the spec the reconcile applied; a network gone from it is
   *     forgotten
   * @param applied those of them whose files the reconcile applied: only they get proof, CHECK and
   *     cleanup
   * @param reported the probe reports of the CniNode status, by network: a network met for the
   *     first time since the agent started takes its report back, so that content proven before a
   *     restart is not probed again
   * @return the networks asked for a run: each reports when its run ends
   */
  Set<String> applied(
      long reconcile,
      List<ManagedNetwork> current,
      List<ManagedNetwork> applied,
      Map<String, ProbeReport> reported);

  /** What the runs last found on {@code network}; {@link NetworkHealth#UNKNOWN} before anything. */
  NetworkHealth health(String network);
}
