package dev.cnioperator.cri;

import java.time.Instant;
import java.util.Map;

/**
 * A pod sandbox as the runtime lists it: its id (the {@code CNI_CONTAINERID} the runtime gave the
 * CNI plugins), the Kubernetes metadata it was started with, and whether it is still ready.
 */
public record PodSandbox(
    String id,
    String name,
    String namespace,
    String uid,
    int attempt,
    State state,
    Instant createdAt,
    Map<String, String> labels,
    Map<String, String> annotations) {

  /** CRI's two sandbox states: READY while its network namespace and pause process are up. */
  public enum State {
    READY,
    NOTREADY
  }

  public PodSandbox {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
  }

  public boolean ready() {
    return state == State.READY;
  }
}
