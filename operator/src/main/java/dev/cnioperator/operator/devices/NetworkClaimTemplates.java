package dev.cnioperator.operator.devices;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the ResourceClaimTemplate of a Multus network published to the scheduler beside each of its
 * NetworkAttachmentDefinitions: same namespace, same name (the network's CNI name, which the pod's
 * Multus annotation names too), one request named {@value #REQUEST} of the network's DeviceClass.
 * So a pod that asks for the network by a claim writes the one name twice. Owned by the CniNetwork,
 * labelled with it; removed where the network no longer has a definition, and everywhere once it
 * stops publishing. A template of that name the network does not own is left alone.
 *
 * <p>Looked at when the namespaces or the network's generation change, and every {@link
 * NetworkDeviceClasses#RECHECK}: one list of the templates labelled with the network.
 */
public final class NetworkClaimTemplates {
  private static final Logger log = LoggerFactory.getLogger(NetworkClaimTemplates.class);

  /** The request of each template: the network, one device, shared with every other pod. */
  public static final String REQUEST = "network";

  static final String NETWORK_LABEL = "cnioperator.dev/network";

  private final KubernetesClient client;
  private final Clock clock;
  private final Map<String, Checked> checked = new ConcurrentHashMap<>();

  private record Inputs(long generation, String name, SortedSet<String> namespaces) {}

  private record Checked(Inputs inputs, Instant at) {}

  public NetworkClaimTemplates(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** The template {@code network} must have in {@code namespace}, named {@code name}. */
  static ResourceClaimTemplate desired(CniNetwork network, String namespace, String name) {
    return new ResourceClaimTemplateBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(Map.of(NETWORK_LABEL, network.getMetadata().getName()))
        .withOwnerReferences(NetworkDeviceClasses.owner(network))
        .endMetadata()
        .withNewSpec()
        .withNewSpec()
        .withNewDevices()
        .addNewRequest()
        .withName(REQUEST)
        // What the API server fills in when left out, written out so that a template read back
        // equals this one.
        .withNewExactly()
        .withDeviceClassName(NetworkDeviceClasses.className(network.getMetadata().getName()))
        .withAllocationMode("ExactCount")
        .withCount(1L)
        .endExactly()
        .endRequest()
        .endDevices()
        .endSpec()
        .endSpec()
        .build();
  }

  /**
   * Makes the network's templates what its spec asks.
   *
   * @param name the network's CNI name, its definitions' and templates' name; null when none was
   *     accepted
   * @param namespaces where the network's own NetworkAttachmentDefinition is now
   */
  public void reconcile(CniNetwork network, String name, List<String> namespaces) {
    String uid = network.getMetadata().getUid();
    boolean wanted = network.getSpec().publishesDevices() && network.getSpec().isMultus();
    SortedSet<String> where = wanted && name != null ? new TreeSet<>(namespaces) : new TreeSet<>();
    Inputs inputs =
        new Inputs(
            Objects.requireNonNullElse(network.getMetadata().getGeneration(), 0L), name, where);
    Instant now = clock.instant();
    Checked last = checked.get(uid);
    if (last != null
        && last.inputs().equals(inputs)
        && now.isBefore(last.at().plus(NetworkDeviceClasses.RECHECK))) {
      return;
    }
    if (last == null && where.isEmpty() && !wanted) {
      // A network that never published: nothing to look for.
      checked.put(uid, new Checked(inputs, now));
      return;
    }
    try {
      apply(network, name, where);
      checked.put(uid, new Checked(inputs, now));
    } catch (KubernetesClientException e) {
      log.warn(
          "event=claim-templates-not-written network={} error=\"{}\"",
          network.getMetadata().getName(),
          e.getMessage());
    }
  }

  /** The network is being deleted: its templates go (or with it, by their owner reference). */
  public void networkDeleted(CniNetwork network) {
    if (checked.remove(network.getMetadata().getUid()) == null
        && !network.getSpec().publishesDevices()) {
      return;
    }
    try {
      apply(network, null, new TreeSet<>());
    } catch (KubernetesClientException e) {
      log.warn(
          "event=claim-templates-not-removed network={} error=\"{}\"",
          network.getMetadata().getName(),
          e.getMessage());
    }
  }

  private void apply(CniNetwork network, String name, SortedSet<String> where) {
    String uid = network.getMetadata().getUid();
    Map<String, ResourceClaimTemplate> own = new HashMap<>();
    for (ResourceClaimTemplate t :
        templates()
            .inAnyNamespace()
            .withLabel(NETWORK_LABEL, network.getMetadata().getName())
            .list()
            .getItems()) {
      if (ownedBy(t, uid)) {
        own.put(t.getMetadata().getNamespace() + "/" + t.getMetadata().getName(), t);
      }
    }
    for (String namespace : where) {
      ResourceClaimTemplate want = desired(network, namespace, name);
      ResourceClaimTemplate held = own.remove(namespace + "/" + name);
      if (held == null) {
        ResourceClaimTemplate other = templates().inNamespace(namespace).withName(name).get();
        if (other != null) {
          log.warn(
              "event=claim-template-not-owned network={} template={}/{} reason=\"a"
                  + " ResourceClaimTemplate of this name exists that the network does not own:"
                  + " left alone\"",
              network.getMetadata().getName(),
              namespace,
              name);
          continue;
        }
        templates().inNamespace(namespace).resource(want).create();
        log.info(
            "event=claim-template-created network={} template={}/{}",
            network.getMetadata().getName(),
            namespace,
            name);
      } else if (!sameRequests(held, want)) {
        // The spec of a template cannot change: replaced.
        templates().inNamespace(namespace).withName(name).delete();
        templates().inNamespace(namespace).resource(want).create();
        log.info(
            "event=claim-template-replaced network={} template={}/{}",
            network.getMetadata().getName(),
            namespace,
            name);
      }
    }
    for (ResourceClaimTemplate gone : own.values()) {
      templates()
          .inNamespace(gone.getMetadata().getNamespace())
          .withName(gone.getMetadata().getName())
          .lockResourceVersion(gone.getMetadata().getResourceVersion())
          .delete();
      log.info(
          "event=claim-template-deleted network={} template={}/{}",
          network.getMetadata().getName(),
          gone.getMetadata().getNamespace(),
          gone.getMetadata().getName());
    }
  }

  /** The requests' names and what each asks for: the part of a template this keeper writes. */
  static boolean sameRequests(ResourceClaimTemplate held, ResourceClaimTemplate want) {
    return Objects.equals(requests(held), requests(want));
  }

  private static List<String> requests(ResourceClaimTemplate t) {
    if (t.getSpec() == null
        || t.getSpec().getSpec() == null
        || t.getSpec().getSpec().getDevices() == null
        || t.getSpec().getSpec().getDevices().getRequests() == null) {
      return List.of();
    }
    return t.getSpec().getSpec().getDevices().getRequests().stream()
        .map(NetworkClaimTemplates::request)
        .toList();
  }

  private static String request(DeviceRequest r) {
    return r.getExactly() == null
        ? r.getName()
        : r.getName()
            + " "
            + r.getExactly().getDeviceClassName()
            + " "
            + r.getExactly().getAllocationMode()
            + " "
            + r.getExactly().getCount();
  }

  private static boolean ownedBy(ResourceClaimTemplate t, String uid) {
    return t.getMetadata().getOwnerReferences() != null
        && t.getMetadata().getOwnerReferences().stream().anyMatch(o -> uid.equals(o.getUid()));
  }

  private io.fabric8.kubernetes.client.dsl.MixedOperation<
          ResourceClaimTemplate,
          io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateList,
          io.fabric8.kubernetes.client.dsl.Resource<ResourceClaimTemplate>>
      templates() {
    return client.dynamicResourceAllocation().v1().resourceClaimTemplates();
  }
}
