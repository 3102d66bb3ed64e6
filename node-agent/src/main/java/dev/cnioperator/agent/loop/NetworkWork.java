package dev.cnioperator.agent.loop;

import dev.cnioperator.agent.check.AttachmentChecker;
import dev.cnioperator.agent.check.ReportedFailures;
import dev.cnioperator.agent.cleanup.CleanupHistory;
import dev.cnioperator.agent.cleanup.StaleAttachmentCleaner;
import dev.cnioperator.agent.dra.ClaimStatusWriter;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.observe.NetworkMetrics;
import dev.cnioperator.agent.probe.RevisionProbe;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.runtime.CniRuntime;

/**
 * The CNI operations a network's loop runs on it, each handed that network's own memory. They keep
 * nothing between calls: everything a network keeps is its {@link NetworkLoop}'s.
 */
public interface NetworkWork {
  ProbeReport prove(ManagedNetwork network, RevisionProbe.LiveCheck live)
      throws InterruptedException;

  /** Removes what a probe killed with the agent left of {@code network}. */
  void sweep(ManagedNetwork network);

  AttachmentSummary check(ManagedNetwork network, ReportedFailures reported, NetworkMetrics metrics)
      throws InterruptedException;

  /** STATUS: "Available" or the plugin's error; null where the network's version has no STATUS. */
  String pluginStatus(ManagedNetwork network);

  StaleAttachmentCleaner.Report clean(
      ManagedNetwork network, CleanupHistory history, NetworkMetrics metrics)
      throws InterruptedException;

  /**
   * Writes what the pods whose claims on {@code network} the kubelet prepared got on it into their
   * claims' status, where it changed.
   */
  void claimStatuses(ManagedNetwork network);

  /**
   * The agent's work: the revision probe, CHECK, the stale cleanup and STATUS through libcni, and
   * the status of the claims on the network.
   */
  static NetworkWork of(
      RevisionProbe probe,
      AttachmentChecker checker,
      StaleAttachmentCleaner cleaner,
      CniRuntime runtime,
      ClaimStatusWriter claims) {
    return new NetworkWork() {
      @Override
      public ProbeReport prove(ManagedNetwork network, RevisionProbe.LiveCheck live)
          throws InterruptedException {
        return probe.prove(network, live);
      }

      @Override
      public void sweep(ManagedNetwork network) {
        probe.sweep(network);
      }

      @Override
      public AttachmentSummary check(
          ManagedNetwork network, ReportedFailures reported, NetworkMetrics metrics)
          throws InterruptedException {
        return checker.check(network, reported, metrics);
      }

      @Override
      public String pluginStatus(ManagedNetwork network) {
        if (!network.list().cniVersion().supportsGcAndStatus()) {
          return null;
        }
        try {
          runtime.getStatusNetworkList(network.list());
          return "Available";
        } catch (CniException e) {
          return e.getMessage();
        }
      }

      @Override
      public StaleAttachmentCleaner.Report clean(
          ManagedNetwork network, CleanupHistory history, NetworkMetrics metrics)
          throws InterruptedException {
        return cleaner.clean(network, history, metrics);
      }

      @Override
      public void claimStatuses(ManagedNetwork network) {
        claims.write(network);
      }
    };
  }
}
