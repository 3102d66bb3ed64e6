package dev.cnioperator.operator.taint;

import java.util.regex.Pattern;

/**
 * The pod network taint, when the operator keeps one: the taint's key (its effect is always {@code
 * NoSchedule}) and where the agent pods are, whose readiness and reports decide it.
 *
 * @param key the taint's key, e.g. {@code cnioperator.dev/pod-network-not-ready}
 * @param agentNamespace the namespace of the agent pods
 * @param agentSelector a label selector that matches the agent pods and no other pod there
 */
public record PodNetworkTaintSettings(String key, String agentNamespace, String agentSelector) {
  /** Pods already on the node keep running; only new pods wait for the node's chain. */
  public static final String EFFECT = "NoSchedule";

  // A Kubernetes qualified name: an optional DNS-subdomain prefix and a name of up to 63.
  private static final Pattern KEY =
      Pattern.compile(
          "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

  public PodNetworkTaintSettings {
    if (key == null || !KEY.matcher(key).matches()) {
      throw new IllegalArgumentException(
          "--pod-network-taint "
              + key
              + " is not a taint key: an optional DNS prefix and a slash, then up to 63 letters,"
              + " digits, '-', '_' or '.', e.g. cnioperator.dev/pod-network-not-ready");
    }
    if (agentSelector == null || agentSelector.isBlank()) {
      throw new IllegalArgumentException(
          "--agent-pod-selector is empty: the pod network taint needs the labels of the agent"
              + " pods, e.g. app.kubernetes.io/component=agent");
    }
  }
}
