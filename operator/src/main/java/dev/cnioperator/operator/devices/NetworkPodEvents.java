package dev.cnioperator.operator.devices;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.operator.events.ClusterEvents;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Warning Event ({@code NetworkUnschedulable}) on each pod the scheduler cannot place that asks
 * for a network published to the scheduler, by its extended resource or by a claim of its
 * DeviceClass, saying why in the network's words ({@link UnschedulablePods#why}); again when the
 * reason changes, as the pod is written or the network's devices change.
 *
 * <p>Watches only pods no node has taken ({@code spec.nodeName=}) and the networks driver's
 * ResourceSlices, and only once a network publishes: a cluster that does not use the feature
 * watches nothing more.
 */
public final class NetworkPodEvents {
  private static final Logger log = LoggerFactory.getLogger(NetworkPodEvents.class);

  private static final String CLASS_SUFFIX = "." + NetworkDevices.DRIVER;

  private final KubernetesClient client;
  private final ClusterEvents events;

  /** What each pod was last told, by uid. */
  private final Map<String, String> told = new ConcurrentHashMap<>();

  private SharedIndexInformer<ResourceSlice> slices;
  private SharedIndexInformer<Pod> pods;

  public NetworkPodEvents(KubernetesClient client, ClusterEvents events) {
    this.client = client;
    this.events = events;
  }

  /** Starts watching, once. */
  public synchronized void start() {
    if (pods != null) {
      return;
    }
    try {
      // A change of a network's devices changes what a pending pod is told, whether or not the
      // scheduler writes the pod again.
      slices =
          client
              .resources(ResourceSlice.class)
              .withField("spec.driver", NetworkDevices.DRIVER)
              .inform(
                  new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(ResourceSlice s) {
                      reconsider();
                    }

                    @Override
                    public void onUpdate(ResourceSlice before, ResourceSlice now) {
                      reconsider();
                    }

                    @Override
                    public void onDelete(ResourceSlice s, boolean unknownFinalState) {
                      reconsider();
                    }
                  },
                  0);
      pods =
          client
              .pods()
              .inAnyNamespace()
              .withField("spec.nodeName", "")
              .inform(
                  new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Pod pod) {
                      seen(pod);
                    }

                    @Override
                    public void onUpdate(Pod before, Pod now) {
                      seen(now);
                    }

                    @Override
                    public void onDelete(Pod pod, boolean unknownFinalState) {
                      told.remove(pod.getMetadata().getUid());
                    }
                  },
                  0);
      log.info("event=unschedulable-pods-watched driver={}", NetworkDevices.DRIVER);
    } catch (KubernetesClientException e) {
      // Tried again at the next reconcile of a published network.
      log.warn("event=unschedulable-pods-not-watched error=\"{}\"", e.getMessage());
      stop();
    }
  }

  /** Every pending pod told before is looked at again. */
  private void reconsider() {
    SharedIndexInformer<Pod> watched = pods;
    if (watched == null) {
      return;
    }
    // The cluster's claims, read once for every pod of the pass, and only if one needs them.
    List<List<ResourceClaim>> read = new ArrayList<>(1);
    Supplier<List<ResourceClaim>> claims =
        () -> {
          if (read.isEmpty()) {
            read.add(allocatedClaims());
          }
          return read.get(0);
        };
    for (Pod pod : watched.getStore().list()) {
      if (told.containsKey(pod.getMetadata().getUid())) {
        seen(pod, claims);
      }
    }
  }

  private void seen(Pod pod) {
    seen(pod, this::allocatedClaims);
  }

  private synchronized void seen(Pod pod, Supplier<List<ResourceClaim>> allocated) {
    if (!UnschedulablePods.unschedulable(pod)) {
      return;
    }
    SortedSet<String> networks = UnschedulablePods.byExtendedResource(pod);
    if (pod.getSpec().getResourceClaims() != null) {
      for (PodResourceClaim c : pod.getSpec().getResourceClaims()) {
        networks.addAll(claimed(pod.getMetadata().getNamespace(), c));
      }
    }
    if (networks.isEmpty()) {
      return;
    }
    List<ResourceSlice> held = slices.getStore().list();
    List<ResourceClaim> claims = allocated.get();
    String message =
        String.join(
            ". ",
            networks.stream()
                .map(
                    n ->
                        UnschedulablePods.why(
                            n, held, UnschedulablePods.claimedAddresses(n, claims)))
                .toList());
    if (!message.equals(told.put(pod.getMetadata().getUid(), message))) {
      events.warnPod(pod, EventReason.NETWORK_UNSCHEDULABLE, message);
      log.info(
          "event=pod-network-unschedulable pod={}/{} message=\"{}\"",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          message);
    }
  }

  /**
   * Every ResourceClaim of the cluster, to count the addresses claims hold: read only while a pod
   * that asks for a published network cannot be placed; none when they cannot be read (the message
   * then says less, and nothing fails).
   */
  private List<ResourceClaim> allocatedClaims() {
    try {
      return client
          .dynamicResourceAllocation()
          .v1()
          .resourceClaims()
          .inAnyNamespace()
          .list()
          .getItems();
    } catch (KubernetesClientException e) {
      log.debug("event=resource-claims-unreadable error=\"{}\"", e.getMessage());
      return List.of();
    }
  }

  /** The networks a pod's claim asks for, through a template or a claim of its own. */
  private List<String> claimed(String namespace, PodResourceClaim c) {
    try {
      List<DeviceRequest> requests = List.of();
      if (c.getResourceClaimTemplateName() != null) {
        ResourceClaimTemplate t =
            client
                .dynamicResourceAllocation()
                .v1()
                .resourceClaimTemplates()
                .inNamespace(namespace)
                .withName(c.getResourceClaimTemplateName())
                .get();
        if (t != null && t.getSpec() != null && t.getSpec().getSpec() != null) {
          requests = t.getSpec().getSpec().getDevices().getRequests();
        }
      } else if (c.getResourceClaimName() != null) {
        ResourceClaim claim =
            client
                .dynamicResourceAllocation()
                .v1()
                .resourceClaims()
                .inNamespace(namespace)
                .withName(c.getResourceClaimName())
                .get();
        if (claim != null && claim.getSpec() != null) {
          requests = claim.getSpec().getDevices().getRequests();
        }
      }
      return (requests == null ? List.<DeviceRequest>of() : requests)
          .stream()
              .map(r -> r.getExactly() == null ? null : r.getExactly().getDeviceClassName())
              .filter(n -> n != null && n.endsWith(CLASS_SUFFIX))
              .map(n -> n.substring(0, n.length() - CLASS_SUFFIX.length()))
              .toList();
    } catch (KubernetesClientException e) {
      log.debug("event=pod-claim-unreadable error=\"{}\"", e.getMessage());
      return List.of();
    }
  }

  private synchronized void stop() {
    if (pods != null) {
      pods.close();
      pods = null;
    }
    if (slices != null) {
      slices.close();
      slices = null;
    }
  }
}
