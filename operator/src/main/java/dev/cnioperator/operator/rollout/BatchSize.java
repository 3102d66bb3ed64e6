package dev.cnioperator.operator.rollout;

import dev.cnioperator.api.v1alpha1.CniNetworkDefaults;
import dev.cnioperator.api.v1alpha1.Rollout;
import java.util.Objects;

/**
 * How many nodes one batch admits: the canary batch first, then spec.rollout.maxNodes, a count or a
 * percentage of the selected nodes rounded up (never less than one node).
 */
public record BatchSize(int canaryNodes, String maxNodes) {

  public static final int DEFAULT_CANARY_NODES = CniNetworkDefaults.ROLLOUT_CANARY_NODES;
  public static final String DEFAULT_MAX_NODES = CniNetworkDefaults.ROLLOUT_MAX_NODES;

  public BatchSize {
    if (canaryNodes < 0) {
      throw new IllegalArgumentException("spec.rollout.canaryNodes must not be negative");
    }
    if (!maxNodes.matches(Rollout.MAX_NODES_PATTERN)) {
      throw new IllegalArgumentException(
          "spec.rollout.maxNodes must be a count or a percentage such as \"25%\": " + maxNodes);
    }
  }

  /** The settings of {@code rollout} with the API server's defaults for what is unset. */
  public static BatchSize of(Rollout rollout) {
    Rollout r = rollout == null ? new Rollout() : rollout;
    return new BatchSize(
        Objects.requireNonNullElse(r.getCanaryNodes(), DEFAULT_CANARY_NODES),
        Objects.requireNonNullElse(r.getMaxNodes(), DEFAULT_MAX_NODES));
  }

  /**
   * The size of the next batch among {@code selected} nodes; {@code first} when no node has been
   * admitted to the revision yet.
   */
  public int next(int selected, boolean first) {
    if (first && canaryNodes > 0) {
      return canaryNodes;
    }
    return limit(selected);
  }

  /** maxNodes as a count of nodes among {@code selected}. */
  public int limit(int selected) {
    if (maxNodes.endsWith("%")) {
      int percent = Integer.parseInt(maxNodes.substring(0, maxNodes.length() - 1));
      return Math.max(1, (int) Math.ceil(selected * percent / 100.0));
    }
    return Integer.parseInt(maxNodes);
  }
}
