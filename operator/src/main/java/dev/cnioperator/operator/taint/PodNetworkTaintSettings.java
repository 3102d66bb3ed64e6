package dev.cnioperator.operator.taint;

import java.util.regex.Pattern;

/**
 * The pod network taint: its key (its effect is always {@code NoSchedule}), whether the operator
 * keeps it or, the feature turned off, only takes it off every node, and where the agent pods are,
 * whose readiness and reports decide it when it is kept.
 *
 * @param key the taint's key, e.g. {@code cnioperator.dev/pod-network-not-ready}
 * @param kept whether the operator keeps the taint on nodes not proven; when false it takes the
 *     taint off every node and keeps it off (what was put there while the feature was on, and what
 *     a kubelet registered with it)
 * @param agentNamespace the namespace of the agent pods
 * @param agentSelector a label selector that matches the agent pods and no other pod there; unused
 *     when the taint is not kept
 */
public record PodNetworkTaintSettings(
    String key, boolean kept, String agentNamespace, String agentSelector) {
  /** Pods already on the node keep running; only new pods wait for the node's chain. */
  public static final String EFFECT = "NoSchedule";

  // A Kubernetes qualified name: an optional DNS-subdomain prefix and a name of up to 63.
  private static final Pattern KEY =
      Pattern.compile(
          "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

  /** The taint kept on every node of an agent until the agent proves the node's pod network. */
  public static PodNetworkTaintSettings kept(
      String key, String agentNamespace, String agentSelector) {
    return new PodNetworkTaintSettings(key, true, agentNamespace, agentSelector);
  }

  /** The taint, turned off: taken off every node that carries it. */
  public static PodNetworkTaintSettings removed(String key) {
    return new PodNetworkTaintSettings(key, false, null, null);
  }

  public PodNetworkTaintSettings {
    if (key == null || !KEY.matcher(key).matches()) {
      throw new IllegalArgumentException(
          "--pod-network-taint "
              + key
              + " is not a taint key: an optional DNS prefix and a slash, then up to 63 letters,"
              + " digits, '-', '_' or '.', e.g. cnioperator.dev/pod-network-not-ready");
    }
    if (kept && (agentSelector == null || agentSelector.isBlank())) {
      throw new IllegalArgumentException(
          "--agent-pod-selector is empty: the pod network taint needs the labels of the agent"
              + " pods, e.g. app.kubernetes.io/component=agent");
    }
  }
}
