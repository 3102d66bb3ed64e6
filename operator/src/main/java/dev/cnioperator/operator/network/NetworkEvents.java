package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records Events on CniNetworks (shown by kubectl describe). The API server accepts Events about
 * cluster-scoped objects only in the "default" namespace; kubectl finds them by the involved
 * object.
 */
public final class NetworkEvents {
  private static final Logger log = LoggerFactory.getLogger(NetworkEvents.class);

  private static final String NAMESPACE = "default";

  private final KubernetesClient client;
  private final Clock clock;

  /** {@code clock} is the reconciler's, so an Event and the condition it reports share a time. */
  public NetworkEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** A Normal or Warning event with a condition-style reason and a message a person can act on. */
  public void record(CniNetwork network, boolean warning, String reason, String message) {
    HasMetadata about = network;
    String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    try {
      client
          .v1()
          .events()
          .inNamespace(NAMESPACE)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(eventName(about.getMetadata().getName()))
                  .endMetadata()
                  .withNewInvolvedObject()
                  .withApiVersion(about.getApiVersion())
                  .withKind(about.getKind())
                  .withName(about.getMetadata().getName())
                  .withUid(about.getMetadata().getUid())
                  .endInvolvedObject()
                  .withType(warning ? "Warning" : "Normal")
                  .withReason(reason)
                  .withMessage(message)
                  .withFirstTimestamp(now)
                  .withLastTimestamp(now)
                  .withCount(1)
                  .withNewSource()
                  .withComponent("cni-operator")
                  .endSource()
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      // An Event is a courtesy to people; failing to record one must not fail the reconcile.
      log.warn(
          "event=event-not-recorded network={} reason={} error={}",
          network.getMetadata().getName(),
          reason,
          e.getMessage());
    }
  }

  /** "<object>.<8 hex>", the object name cut so the whole stays a valid 253-character name. */
  private static String eventName(String object) {
    String base =
        (object.length() > 240 ? object.substring(0, 240) : object).replaceAll("[.-]+$", "");
    return base + "." + UUID.randomUUID().toString().substring(0, 8);
  }
}
