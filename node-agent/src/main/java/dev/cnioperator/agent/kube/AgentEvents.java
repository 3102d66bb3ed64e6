package dev.cnioperator.agent.kube;

import dev.cnioperator.api.v1alpha1.CniNode;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records Warning Events where the people concerned look for trouble: on a Pod for its owners, on
 * the node's CniNode for whoever runs the node's networks.
 */
public final class AgentEvents {
  public static final String COMPONENT = "cni-node-agent";

  /**
   * Where Events of cluster-scoped objects go, as the kubelet's of a Node do; {@code kubectl
   * describe} finds them from any namespace.
   */
  static final String CLUSTER_SCOPED_NAMESPACE = "default";

  private static final Logger LOG = LoggerFactory.getLogger(AgentEvents.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final Clock clock;

  public AgentEvents(KubernetesClient client, String nodeName, Clock clock) {
    this.client = client;
    this.nodeName = nodeName;
    this.clock = clock;
  }

  /** A Warning on pod {@code namespace/name}; a failure to record it is logged, not thrown. */
  public void warnPod(String namespace, String name, String uid, String reason, String message) {
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
  public void warnCniNode(String uid, String reason, String message) {
    warn(
        CLUSTER_SCOPED_NAMESPACE,
        new ObjectReferenceBuilder()
            .withApiVersion(new CniNode().getApiVersion())
            .withKind(new CniNode().getKind())
            .withName(nodeName)
            .withUid(uid)
            .build(),
        reason,
        message);
  }

  private void warn(String namespace, ObjectReference about, String reason, String message) {
    String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    try {
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withGenerateName(about.getName() + ".")
                  .withNamespace(namespace)
                  .endMetadata()
                  .withInvolvedObject(about)
                  .withType("Warning")
                  .withReason(reason)
                  .withMessage(message)
                  .withNewSource()
                  .withComponent(COMPONENT)
                  .withHost(nodeName)
                  .endSource()
                  .withReportingComponent(COMPONENT)
                  .withReportingInstance(nodeName)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      LOG.warn(
          "event=k8s-event-failed kind={} object={}/{} reason={} error=\"{}\"",
          about.getKind(),
          namespace,
          about.getName(),
          reason,
          e.getMessage());
    }
  }
}
