package dev.cnioperator.agent.network;

import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;

/**
 * The container id and network namespace name of this node's probes: {@code
 * cni-operator-probe-<node tag>-<sha8>}. The node tag (8 hex digits of the node name's sha256)
 * keeps the probes of agents sharing one machine's /var/run/netns apart, and tells this agent's
 * leftovers from theirs.
 */
public record ProbeIdentity(String nodeTag) {

  /** Every probe's container id starts with this; no pod's may be taken for one. */
  public static final String PREFIX = "cni-operator-probe-";

  /** The interface the probe attachment gets inside its own namespace. */
  public static final String IF_NAME = "probe0";

  public static ProbeIdentity forNode(String nodeName) {
    String sha = Sha256.hex(nodeName.getBytes(StandardCharsets.UTF_8));
    return new ProbeIdentity(sha.substring(0, 8));
  }

  /** The container id (and namespace name) of the probe of content {@code sha256}. */
  public String containerId(String sha256) {
    return ours() + sha256.substring(0, 8);
  }

  /** Whether {@code name} is a probe container id or namespace of this node. */
  public boolean isOwn(String name) {
    return name != null && name.startsWith(ours());
  }

  /** Whether {@code containerId} is any node's probe: never a pod's attachment. */
  public static boolean isProbe(String containerId) {
    return containerId != null && containerId.startsWith(PREFIX);
  }

  private String ours() {
    return PREFIX + nodeTag + "-";
  }
}
