package dev.cnioperator.runtime.events;

import dev.cnioperator.runtime.client.CallDeadline;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records core/v1 Events, as {@code kubectl describe} shows them, for the operator and the agent.
 * An Event is a courtesy to people: failing to record one is logged, never thrown.
 */
public final class EventRecorder {
  /**
   * Where Events of cluster-scoped objects go: the API server takes them only in {@code default},
   * as the kubelet's of a Node; {@code kubectl describe} finds them from any namespace.
   */
  public static final String CLUSTER_SCOPED_NAMESPACE = "default";

  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);

  private final KubernetesClient client;
  private final Clock clock;
  private final String component;
  private final String host;
  private final CallDeadline deadline;

  /**
   * @param component the program, the Event's source and reporting component
   * @param host the node the program runs on, or null for a program of the cluster (the operator)
   * @param deadline how long a create may take before it is given up (and logged)
   */
  public EventRecorder(
      KubernetesClient client, Clock clock, String component, String host, CallDeadline deadline) {
    this.client = client;
    this.clock = clock;
    this.component = component;
    this.host = host;
    this.deadline = deadline;
  }

  /** A Normal or Warning Event about {@code about}, in {@code namespace}. */
  public void record(
      String namespace, ObjectReference about, boolean warning, String reason, String message) {
    String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    Event event =
        new EventBuilder()
            .withNewMetadata()
            .withName(eventName(about.getName()))
            .withNamespace(namespace)
            .endMetadata()
            .withInvolvedObject(about)
            .withType(warning ? "Warning" : "Normal")
            .withReason(reason)
            .withMessage(message)
            .withNewSource()
            .withComponent(component)
            .withHost(host)
            .endSource()
            .withReportingComponent(component)
            .withReportingInstance(host)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .build();
    try {
      deadline.call(
          "record Event " + reason + " on " + about.getKind() + " " + about.getName(),
          () -> client.v1().events().inNamespace(namespace).resource(event).create());
    } catch (KubernetesClientException e) {
      log.warn(
          "event=k8s-event-failed kind={} object={}/{} reason={} error=\"{}\"",
          about.getKind(),
          namespace,
          about.getName(),
          reason,
          e.getMessage());
    }
  }

  /** "<object>.<8 hex>", the object name cut so the whole stays a valid 253-character name. */
  static String eventName(String object) {
    String base =
        (object.length() > 240 ? object.substring(0, 240) : object).replaceAll("[.-]+$", "");
    return base + "." + UUID.randomUUID().toString().substring(0, 8);
  }
}
