package dev.cnioperator.agent.kube;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Records Events on Pods, where the people who own a pod look for trouble with it. */
public final class PodEvents {
  public static final String COMPONENT = "cni-node-agent";
  private static final Logger LOG = LoggerFactory.getLogger(PodEvents.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final Clock clock;

  public PodEvents(KubernetesClient client, String nodeName, Clock clock) {
    this.client = client;
    this.nodeName = nodeName;
    this.clock = clock;
  }

  /** A Warning on pod {@code namespace/name}; a failure to record it is logged, not thrown. */
  public void warn(String namespace, String name, String uid, String reason, String message) {
    String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    try {
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withGenerateName(name + ".")
                  .withNamespace(namespace)
                  .endMetadata()
                  .withInvolvedObject(
                      new ObjectReferenceBuilder()
                          .withApiVersion("v1")
                          .withKind("Pod")
                          .withNamespace(namespace)
                          .withName(name)
                          .withUid(uid)
                          .build())
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
          "event=pod-event-failed pod={}/{} reason={} error=\"{}\"",
          namespace,
          name,
          reason,
          e.getMessage());
    }
  }
}
