package dev.cnioperator.agent.dra;

import dev.cnioperator.agent.network.PodRef;
import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.result.Interface;
import dev.cnioperator.cni.result.IpConfig;
import dev.cnioperator.cni.result.Result;
import dev.cnioperator.cni.result.Results;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.NetworkDeviceData;
import io.fabric8.kubernetes.api.model.resource.v1.NetworkDeviceDataBuilder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a pod got on a network it claimed, as its claim's {@code status.devices} entries say it to
 * {@code kubectl get resourceclaim}: for each device of the network allocated to the claim on this
 * node, the interface of an attachment of the claim's pods on that network (libcni's cache entry),
 * with the addresses and the MAC address its ADD result gave it. A projection of the claim and the
 * cache, nothing else, so that an unchanged node projects the same entries and writes nothing.
 */
public final class ClaimDeviceStatus {
  /** What the API server takes at most (resource.k8s.io/v1 NetworkDeviceData). */
  static final int MAX_IPS = 16;

  static final int MAX_INTERFACE_NAME = 256;
  static final int MAX_HARDWARE_ADDRESS = 128;

  private ClaimDeviceStatus() {}

  /**
   * The entries of {@code claim}'s devices of {@code network}, from that network's cache entries.
   * Its pods' attachments, in the claim's order of pods and by interface name, go with its devices
   * of the network in allocation order: the first attachment to the first device, and so on. A
   * device without an attachment (the pod has none on the network yet) gets no entry, so a claim
   * whose pods have none gets none. A pod's probe-named entries never count (the agent's own).
   *
   * @param pool the node's name: the pool of the node's devices
   * @param cache the network's cache entries, in any order
   */
  public static List<AllocatedDeviceStatus> of(
      PreparedClaims.Claim claim, String network, String pool, List<CachedAttachment> cache) {
    List<PreparedClaims.Allocation> devices =
        claim.allocated().stream().filter(a -> network.equals(a.device())).distinct().toList();
    if (devices.isEmpty()) {
      return List.of();
    }
    List<CachedAttachment> attachments = attachments(claim.pods(), cache);
    List<AllocatedDeviceStatus> entries = new ArrayList<>();
    for (int i = 0; i < devices.size() && i < attachments.size(); i++) {
      entries.add(entry(pool, devices.get(i), attachments.get(i)));
    }
    return entries;
  }

  /**
   * The attachments of {@code pods} in {@code cache}: by the pods' order, then interface name, then
   * container; one per pod and interface (an earlier sandbox's entry not yet removed has the same).
   */
  static List<CachedAttachment> attachments(List<String> pods, List<CachedAttachment> cache) {
    Map<String, CachedAttachment> byPodAndInterface = new LinkedHashMap<>();
    cache.stream()
        .filter(e -> !ProbeIdentity.isProbe(e.containerId()))
        .filter(e -> pods.contains(PodRef.of(e.cniArgs()).uid()))
        .sorted(
            Comparator.comparingInt(
                    (CachedAttachment e) -> pods.indexOf(PodRef.of(e.cniArgs()).uid()))
                .thenComparing(CachedAttachment::ifName)
                .thenComparing(CachedAttachment::containerId))
        .forEach(
            e -> byPodAndInterface.putIfAbsent(PodRef.of(e.cniArgs()).uid() + "/" + e.ifName(), e));
    return List.copyOf(byPodAndInterface.values());
  }

  /** The entry of {@code device} for the attachment {@code entry}. */
  static AllocatedDeviceStatus entry(
      String pool, PreparedClaims.Allocation device, CachedAttachment entry) {
    return new AllocatedDeviceStatusBuilder()
        .withDriver(NetworkDevices.DRIVER)
        .withPool(pool)
        .withDevice(device.device())
        .withShareID(device.shareID())
        .withNetworkData(networkData(entry))
        .build();
  }

  /**
   * The attachment's interface name (its {@code CNI_IFNAME}), and from its cached ADD result, where
   * it has one that can be read: the addresses it gave the pod, in the canonical CIDR form the API
   * server asks for, and the MAC address of the pod's interface they are on. An address on an
   * interface outside the pod (one without a sandbox, as a bridge) is not the pod's.
   */
  static NetworkDeviceData networkData(CachedAttachment entry) {
    NetworkDeviceDataBuilder data = new NetworkDeviceDataBuilder();
    if (entry.ifName().length() <= MAX_INTERFACE_NAME) {
      data.withInterfaceName(entry.ifName());
    }
    Result result = result(entry);
    if (result == null) {
      return data.build();
    }
    List<Interface> interfaces = result.interfaces();
    Set<String> ips = new LinkedHashSet<>();
    Interface own = null;
    for (IpConfig ip : result.ips()) {
      Interface on = interfaceOf(ip, interfaces);
      if (on != null && on.sandbox() == null) {
        continue;
      }
      if (ips.size() < MAX_IPS) {
        ips.add(ip.address());
      }
      if (own == null) {
        own = on;
      }
    }
    if (own == null) {
      // No address names its interface: the pod's is the one in a sandbox under the entry's name.
      own =
          interfaces.stream()
              .filter(i -> i.sandbox() != null && i.name().equals(entry.ifName()))
              .findFirst()
              .orElse(null);
    }
    if (!ips.isEmpty()) {
      data.withIps(List.copyOf(ips));
    }
    if (own != null && own.mac() != null && own.mac().length() <= MAX_HARDWARE_ADDRESS) {
      data.withHardwareAddress(own.mac());
    }
    return data.build();
  }

  /** The interface {@code ip} names, null when it names none there is. */
  private static Interface interfaceOf(IpConfig ip, List<Interface> interfaces) {
    Integer index = ip.interfaceIndex();
    return index == null || index >= interfaces.size() ? null : interfaces.get(index);
  }

  /** The entry's ADD result, null when it has none or none that can be read. */
  private static Result result(CachedAttachment entry) {
    if (entry.result() == null || entry.result().isNull()) {
      return null;
    }
    try {
      return Results.parse(entry.result());
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** The entries as the log says them: {@code lan:eth0[10.1.0.5/24]}. */
  static List<String> shown(List<AllocatedDeviceStatus> entries) {
    return entries.stream()
        .map(
            e ->
                e.getDevice()
                    + (e.getShareID() == null ? "" : "/" + e.getShareID())
                    + ":"
                    + Objects.toString(e.getNetworkData().getInterfaceName(), "")
                    + e.getNetworkData().getIps())
        .toList();
  }
}
