package dev.cnioperator.operator.events;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.runtime.client.CallDeadline;
import dev.cnioperator.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;

/**
 * Records the operator's Events on cluster-scoped objects, CniNetworks and Nodes (shown by kubectl
 * describe), in the namespace the API server takes such Events in; kubectl finds them by the
 * involved object.
 */
public final class ClusterEvents {
  /**
   * How long recording one Event may hold up a reconcile: fabric8's own request timeout ends at the
   * response headers (see {@link CallDeadline}).
   */
  static final CallDeadline EVENT_DEADLINE = new CallDeadline(Duration.ofSeconds(30));

  private final EventRecorder recorder;

  /** {@code clock} is the reconciler's, so an Event and the condition it reports share a time. */
  public ClusterEvents(KubernetesClient client, Clock clock) {
    this.recorder = new EventRecorder(client, clock, "cni-operator", null, EVENT_DEADLINE);
  }

  /**
   * A Warning Event with a message a person can act on. A failure to record it is logged and does
   * not fail the reconcile.
   */
  public void warn(CniNetwork network, EventReason reason, String message) {
    record(network, true, reason.wire(), message);
  }

  /**
   * A Normal or Warning Event for condition {@code now}'s transition: its reason (a {@link
   * ConditionReason}) is the Event's, and its type and message the Event's message.
   */
  public void conditionChanged(CniNetwork network, boolean warning, Condition now) {
    record(network, warning, now.getReason(), now.getType() + ": " + now.getMessage());
  }

  /** A Warning Event on a Pod. */
  public void warnPod(Pod pod, EventReason reason, String message) {
    recorder.record(
        pod.getMetadata().getNamespace(),
        new ObjectReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Pod")
            .withNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName())
            .withUid(pod.getMetadata().getUid())
            .build(),
        true,
        reason.wire(),
        message);
  }

  /** A Normal Event on Node {@code name}. */
  public void onNode(String name, EventReason reason, String message) {
    // kubectl describe node finds a Node's Events by a uid equal to its name, as the kubelet
    // records them.
    record("v1", "Node", name, name, false, reason.wire(), message);
  }

  private void record(CniNetwork network, boolean warning, String reason, String message) {
    record(
        network.getApiVersion(),
        network.getKind(),
        network.getMetadata().getName(),
        network.getMetadata().getUid(),
        warning,
        reason,
        message);
  }

  private void record(
      String apiVersion,
      String kind,
      String name,
      String uid,
      boolean warning,
      String reason,
      String message) {
    recorder.record(
        EventRecorder.CLUSTER_SCOPED_NAMESPACE,
        new ObjectReferenceBuilder()
            .withApiVersion(apiVersion)
            .withKind(kind)
            .withName(name)
            .withUid(uid)
            .build(),
        warning,
        reason,
        message);
  }
}
