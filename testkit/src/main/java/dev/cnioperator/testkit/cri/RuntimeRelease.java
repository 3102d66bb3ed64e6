package dev.cnioperator.testkit.cri;

/**
 * A container runtime release a test node can run: a containerd release ({@link
 * dev.cnioperator.testkit.containerd.ContainerdRelease}) or a CRI-O release ({@link
 * dev.cnioperator.testkit.crio.CrioRelease}).
 */
public interface RuntimeRelease {
  /**
   * Where a node shows this runtime's CRI socket: the runtime's own default, which is the chart's
   * profile for it, so that the kubelet and the agent find it where they would on a real node.
   */
  String criSocket();

  /** The chart's host-path profile for a node of this runtime ({@code agent.hostPaths.profile}). */
  String chartProfile();
}
