package dev.cnioperator.operator.devices;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the DeviceClass of each network published to the scheduler
 * (spec.scheduling.publishDevices): named {@code <network>.networks.cnioperator.dev}, selecting the
 * network's device on every node, and mapped to the extended resource {@code
 * networks.cnioperator.dev/<network>}, so that a pod asks for the network by a ResourceClaim of
 * this class or by a resource limit of one. Owned by the CniNetwork; deleted when the network stops
 * publishing or is deleted.
 *
 * <p>Looked at once per generation of the network and again every {@link #RECHECK} (a class deleted
 * or edited by hand is put back then), so that agents' reports, which reconcile the network often,
 * cost no request. A class of that name the network does not own is left alone.
 */
public final class NetworkDeviceClasses {
  private static final Logger log = LoggerFactory.getLogger(NetworkDeviceClasses.class);

  static final Duration RECHECK = Duration.ofMinutes(5);

  private final KubernetesClient client;
  private final Clock clock;

  /** The generation of each network (by uid) whose class was made to match, and when. */
  private final Map<String, Checked> checked = new ConcurrentHashMap<>();

  private record Checked(long generation, boolean published, Instant at) {}

  public NetworkDeviceClasses(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** The class of a network: {@code <network>.networks.cnioperator.dev}. */
  public static String className(String network) {
    return network + "." + NetworkDevices.DRIVER;
  }

  /**
   * The extended resource a pod asks for the network by: {@code
   * networks.cnioperator.dev/<network>}.
   */
  public static String extendedResourceName(String network) {
    return NetworkDevices.DRIVER + "/" + network;
  }

  /** The class {@code network} must have while it publishes. */
  static DeviceClass desired(CniNetwork network) {
    String name = network.getMetadata().getName();
    return new DeviceClassBuilder()
        .withMetadata(
            new ObjectMetaBuilder()
                .withName(className(name))
                .withLabels(Map.of("cnioperator.dev/network", name))
                .withOwnerReferences(owner(network))
                .build())
        .withNewSpec()
        .addNewSelector()
        .withNewCel()
        .withExpression(
            "device.driver == \""
                + NetworkDevices.DRIVER
                + "\" && device.attributes[\""
                + NetworkDevices.DRIVER
                + "\"]."
                + NetworkDevices.ATTRIBUTE_NETWORK
                + " == \""
                + name
                + "\"")
        .endCel()
        .endSelector()
        .withExtendedResourceName(extendedResourceName(name))
        .endSpec()
        .build();
  }

  /** The network as the controlling owner of what is kept for it. */
  static OwnerReference owner(CniNetwork network) {
    return new OwnerReferenceBuilder()
        .withApiVersion(network.getApiVersion())
        .withKind(network.getKind())
        .withName(network.getMetadata().getName())
        .withUid(network.getMetadata().getUid())
        .withController(true)
        .build();
  }

  /**
   * Makes the network's class what its spec asks: there while it publishes, gone when not. A
   * failure is logged and tried again at the next reconcile.
   */
  public void reconcile(CniNetwork network) {
    String uid = network.getMetadata().getUid();
    boolean published = network.getSpec().publishesDevices();
    long generation = Objects.requireNonNullElse(network.getMetadata().getGeneration(), 0L);
    Instant now = clock.instant();
    Checked last = checked.get(uid);
    if (last != null
        && last.generation() == generation
        && last.published() == published
        && now.isBefore(last.at().plus(RECHECK))) {
      return;
    }
    if (last == null && !published) {
      // A network met unpublished: nothing to look for (a class it had is deleted with it).
      checked.put(uid, new Checked(generation, false, now));
      return;
    }
    try {
      if (published) {
        ensure(network);
      } else if (last.published()) {
        remove(network);
      }
      checked.put(uid, new Checked(generation, published, now));
    } catch (KubernetesClientException e) {
      log.warn(
          "event=device-class-not-written network={} error=\"{}\"",
          network.getMetadata().getName(),
          e.getMessage());
    }
  }

  /** The network is being deleted: its class goes at once (or with it, by its owner reference). */
  public void networkDeleted(CniNetwork network) {
    Checked last = checked.remove(network.getMetadata().getUid());
    if (!network.getSpec().publishesDevices() && last != null && !last.published()) {
      return;
    }
    try {
      remove(network);
    } catch (KubernetesClientException e) {
      log.warn(
          "event=device-class-not-removed network={} error=\"{}\"",
          network.getMetadata().getName(),
          e.getMessage());
    }
  }

  private void ensure(CniNetwork network) {
    DeviceClass want = desired(network);
    String name = want.getMetadata().getName();
    DeviceClass held = classes().withName(name).get();
    if (held == null) {
      classes().resource(want).create();
      log.info(
          "event=device-class-created network={} class={}", network.getMetadata().getName(), name);
      return;
    }
    if (!ownedBy(held, network)) {
      log.warn(
          "event=device-class-not-owned network={} class={} reason=\"a DeviceClass of this name exists that the network does not own: left alone\"",
          network.getMetadata().getName(),
          name);
      return;
    }
    if (sameSpec(held.getSpec(), want.getSpec())) {
      return;
    }
    want.getMetadata().setResourceVersion(held.getMetadata().getResourceVersion());
    classes().resource(want).update();
    log.info(
        "event=device-class-updated network={} class={}", network.getMetadata().getName(), name);
  }

  private void remove(CniNetwork network) {
    String name = className(network.getMetadata().getName());
    DeviceClass held = classes().withName(name).get();
    if (held != null && ownedBy(held, network)) {
      classes()
          .withName(name)
          .lockResourceVersion(held.getMetadata().getResourceVersion())
          .delete();
      log.info(
          "event=device-class-deleted network={} class={}", network.getMetadata().getName(), name);
    }
  }

  /** The selectors and the extended resource; the API server adds nothing else to a spec. */
  static boolean sameSpec(DeviceClassSpec held, DeviceClassSpec want) {
    return held != null
        && Objects.equals(held.getSelectors(), want.getSelectors())
        && Objects.equals(held.getExtendedResourceName(), want.getExtendedResourceName())
        && (held.getConfig() == null || held.getConfig().isEmpty());
  }

  private static boolean ownedBy(DeviceClass held, CniNetwork network) {
    return held.getMetadata().getOwnerReferences() != null
        && held.getMetadata().getOwnerReferences().stream()
            .anyMatch(o -> network.getMetadata().getUid().equals(o.getUid()));
  }

  private io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
          DeviceClass,
          io.fabric8.kubernetes.api.model.resource.v1.DeviceClassList,
          io.fabric8.kubernetes.client.dsl.Resource<DeviceClass>>
      classes() {
    return client.dynamicResourceAllocation().v1().deviceClasses();
  }
}
