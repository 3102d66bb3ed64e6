package dev.cnioperator.operator.devices;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.runtime.text.CappedList;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Why the scheduler cannot place a pod that asks for a network, in the network's words: the
 * scheduler says only "cannot allocate all claims". Read from the ResourceSlices of the networks
 * driver, which is what the scheduler allocates from: on which nodes the network's device is
 * tainted (not proven there, and why), has no address left, or is not published. Pure.
 */
public final class UnschedulablePods {
  private UnschedulablePods() {}

  /** Whether the scheduler has tried and failed to place {@code pod}. */
  public static boolean unschedulable(Pod pod) {
    if (pod.getSpec() == null
        || (pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty())
        || pod.getStatus() == null
        || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("PodScheduled".equals(c.getType())
          && "False".equals(c.getStatus())
          && "Unschedulable".equals(c.getReason())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The networks {@code pod} asks for by their extended resource ({@code
   * networks.cnioperator.dev/<network>} on a container), sorted.
   */
  public static SortedSet<String> byExtendedResource(Pod pod) {
    SortedSet<String> networks = new TreeSet<>();
    String prefix = NetworkDevices.DRIVER + "/";
    Stream.concat(
            pod.getSpec().getContainers().stream(),
            pod.getSpec().getInitContainers() == null
                ? Stream.empty()
                : pod.getSpec().getInitContainers().stream())
        .map(Container::getResources)
        .filter(r -> r != null)
        .flatMap(r -> Stream.concat(keys(r.getLimits()).stream(), keys(r.getRequests()).stream()))
        .filter(k -> k.startsWith(prefix))
        .forEach(k -> networks.add(k.substring(prefix.length())));
    return networks;
  }

  private static Collection<String> keys(Map<String, Quantity> m) {
    return m == null ? List.of() : m.keySet();
  }

  /**
   * The addresses of {@code network} that allocated claims hold, by node (the pool of the network's
   * device there): each allocation of the device consumes what its result says, one address when it
   * says nothing (the device's request policy).
   */
  public static Map<String, BigInteger> claimedAddresses(
      String network, Collection<ResourceClaim> claims) {
    Map<String, BigInteger> claimed = new TreeMap<>();
    for (ResourceClaim c : claims) {
      for (DeviceRequestAllocationResult r : results(c)) {
        if (NetworkDevices.DRIVER.equals(r.getDriver()) && network.equals(r.getDevice())) {
          Quantity q =
              r.getConsumedCapacity() == null
                  ? null
                  : r.getConsumedCapacity().get(NetworkDevices.CAPACITY_ADDRESSES);
          BigInteger n = q == null ? BigInteger.ONE : Quantity.getAmountInBytes(q).toBigInteger();
          claimed.merge(r.getPool(), n, BigInteger::add);
        }
      }
    }
    return claimed;
  }

  /** The devices allocated to {@code claim}; none while it is not allocated. */
  static List<DeviceRequestAllocationResult> results(ResourceClaim claim) {
    if (claim.getStatus() == null
        || claim.getStatus().getAllocation() == null
        || claim.getStatus().getAllocation().getDevices() == null
        || claim.getStatus().getAllocation().getDevices().getResults() == null) {
      return List.of();
    }
    return claim.getStatus().getAllocation().getDevices().getResults();
  }

  /**
   * Why no node takes a pod that asks for {@code network}: where its device is not proven and why,
   * where it has no address left (the pods that attach without a claim took them, or claims hold
   * them all: {@code claimed}, by node), and how many nodes have it proven with addresses to spare
   * (the scheduler turned those down for another reason).
   *
   * @param slices the ResourceSlices of the networks driver
   * @param claimed the addresses of the network allocated claims hold, by node ({@link
   *     #claimedAddresses}); empty when they could not be read
   */
  public static String why(
      String network, Collection<ResourceSlice> slices, Map<String, BigInteger> claimed) {
    List<String> notProven = new ArrayList<>();
    List<String> full = new ArrayList<>();
    int fine = 0;
    for (ResourceSlice s : slices) {
      if (s.getSpec() == null || s.getSpec().getDevices() == null) {
        continue;
      }
      String node = s.getSpec().getNodeName();
      for (Device d : s.getSpec().getDevices()) {
        if (!network.equals(d.getName())) {
          continue;
        }
        BigInteger capacity = addresses(d);
        String pool = s.getSpec().getPool() == null ? node : s.getSpec().getPool().getName();
        BigInteger held = claimed.getOrDefault(pool, BigInteger.ZERO);
        if (d.getTaints() != null && !d.getTaints().isEmpty()) {
          notProven.add(node + " (" + d.getTaints().get(0).getValue() + ")");
        } else if (capacity != null && capacity.compareTo(held) <= 0) {
          full.add(
              held.signum() == 0 ? node : node + " (" + held + " claimed of " + capacity + ")");
        } else {
          fine++;
        }
      }
    }
    List<String> parts = new ArrayList<>();
    if (!notProven.isEmpty()) {
      parts.add("not proven on " + CappedList.names(notProven));
    }
    if (!full.isEmpty()) {
      parts.add("no address left on " + CappedList.names(full));
    }
    if (fine == 0 && notProven.isEmpty() && full.isEmpty()) {
      parts.add("published on no node (see the network's status and its nodes' CniNodes)");
    } else if (fine > 0) {
      parts.add(
          "proven with addresses left on "
              + fine
              + (fine == 1 ? " node" : " nodes")
              + " that the scheduler turned down for other reasons");
    }
    return "network " + network + ": " + String.join("; ", parts);
  }

  /** The device's address capacity, null when the node cannot count them. */
  private static BigInteger addresses(Device d) {
    DeviceCapacity c =
        d.getCapacity() == null ? null : d.getCapacity().get(NetworkDevices.CAPACITY_ADDRESSES);
    return c == null || c.getValue() == null
        ? null
        : Quantity.getAmountInBytes(c.getValue()).toBigInteger();
  }
}
