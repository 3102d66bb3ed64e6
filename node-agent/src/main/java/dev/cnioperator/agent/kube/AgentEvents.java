package dev.cnioperator.agent.kube;

import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.runtime.client.CallDeadline;
import dev.cnioperator.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;

/**
 * Records Warning Events where the people concerned look for trouble: on a Pod for its owners, on
 * the node's CniNode for whoever runs the node's networks; a failure to record one is logged.
 */
public final class AgentEvents {
  public static final String COMPONENT = "cni-node-agent";

  private final String nodeName;
  private final EventRecorder recorder;

  public AgentEvents(KubernetesClient client, String nodeName, Clock clock, CallDeadline deadline) {
    this.nodeName = nodeName;
    this.recorder = new EventRecorder(client, clock, COMPONENT, nodeName, deadline);
  }

  /** A Warning on pod {@code namespace/name}; a failure to record it is logged, not thrown. */
  public void warnPod(
      String namespace, String name, String uid, EventReason reason, String message) {
    warn(
        namespace,
        new ObjectReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Pod")
            .withNamespace(namespace)
            .withName(name)
            .withUid(uid)
            .build(),
        reason,
        message);
  }

  /** A Warning on this node's CniNode, whose uid is {@code uid}; a failure is logged. */
  public void warnCniNode(String uid, EventReason reason, String message) {
    warn(
        EventRecorder.CLUSTER_SCOPED_NAMESPACE,
        new ObjectReferenceBuilder()
            .withApiVersion(new CniNode().getApiVersion())
            .withKind(new CniNode().getKind())
            .withName(nodeName)
            .withUid(uid)
            .build(),
        reason,
        message);
  }

  private void warn(String namespace, ObjectReference about, EventReason reason, String message) {
    recorder.record(namespace, about, true, reason.wire(), message);
  }
}
