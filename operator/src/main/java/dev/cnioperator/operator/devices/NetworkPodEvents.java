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
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Warning Event ({@code NetworkUnschedulable}) on each pod the scheduler cannot place that asks
 * for a network published to the scheduler, by its extended resource or by a claim of its
 * DeviceClass, saying why in the network's words ({@link UnschedulablePods#why}); again when the
 * reason changes, as the pod is written or the network's devices change.
 *
 * <p>Watches only pods no node has taken ({@code spec.nodeName=}), the networks driver's
 * ResourceSlices and the cluster's ResourceClaims (the addresses claims hold), and only once a
 * network publishes: a cluster that does not use the feature watches nothing more.
 */
public final class NetworkPodEvents {
  private static final Logger log = LoggerFactory.getLogger(NetworkPodEvents.class);

  private static final String CLASS_SUFFIX = "." + NetworkDevices.DRIVER;

  private final KubernetesClient client;
  private final ClusterEvents events;

  /** What each pod was last told, by uid. */
  private final Map<String, String> told = new ConcurrentHashMap<>();

  private SharedIndexInformer<ResourceSlice> slices;
  private SharedIndexInformer<ResourceClaim> claims;
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
      // The claims of the networks' devices hold addresses the slices do not show: a claim
      // allocated, or let go, changes what a pending pod is told too.
      claims =
          client
              .dynamicResourceAllocation()
              .v1()
              .resourceClaims()
              .inAnyNamespace()
              .inform(
                  new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(ResourceClaim c) {
                      if (ofTheDriver(c)) {
                        reconsider();
                      }
                    }

                    @Override
                    public void onUpdate(ResourceClaim before, ResourceClaim now) {
                      if (ofTheDriver(before) || ofTheDriver(now)) {
                        reconsider();
                      }
                    }

                    @Override
                    public void onDelete(ResourceClaim c, boolean unknownFinalState) {
                      if (ofTheDriver(c)) {
                        reconsider();
                      }
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
    for (Pod pod : watched.getStore().list()) {
      if (told.containsKey(pod.getMetadata().getUid())) {
        seen(pod);
      }
    }
  }

  private synchronized void seen(Pod pod) {
    if (slices == null || claims == null || !UnschedulablePods.unschedulable(pod)) {
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
    List<ResourceClaim> allocated = claims.getStore().list();
    String message =
        String.join(
            ". ",
            networks.stream()
                .map(
                    n ->
                        UnschedulablePods.why(
                            n, held, UnschedulablePods.claimedAddresses(n, allocated)))
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

  /** Whether {@code claim} is allocated a device of the networks driver. */
  private static boolean ofTheDriver(ResourceClaim claim) {
    return UnschedulablePods.results(claim).stream()
        .anyMatch(r -> NetworkDevices.DRIVER.equals(r.getDriver()));
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
            claims.getStore().getByKey(namespace + "/" + c.getResourceClaimName());
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
    if (claims != null) {
      claims.close();
      claims = null;
    }
  }
}
