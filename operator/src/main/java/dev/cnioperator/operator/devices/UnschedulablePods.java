package dev.cnioperator.operator.devices;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.runtime.text.CappedList;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
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
   * Why no node takes a pod that asks for {@code network}: where its device is not proven and why,
   * where it has no address left, and how many nodes have it proven with addresses to spare (the
   * scheduler turned those down for another reason, or claims took their addresses: the slices do
   * not say how many).
   *
   * @param slices the ResourceSlices of the networks driver
   */
  public static String why(String network, Collection<ResourceSlice> slices) {
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
        if (d.getTaints() != null && !d.getTaints().isEmpty()) {
          notProven.add(node + " (" + d.getTaints().get(0).getValue() + ")");
        } else if (noAddressLeft(d)) {
          full.add(node);
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
              + " that the scheduler turned down for other reasons, or whose addresses the"
              + " pods that claim the network have taken");
    }
    return "network " + network + ": " + String.join("; ", parts);
  }

  private static boolean noAddressLeft(Device d) {
    DeviceCapacity c =
        d.getCapacity() == null ? null : d.getCapacity().get(NetworkDevices.CAPACITY_ADDRESSES);
    return c != null
        && c.getValue() != null
        && Quantity.getAmountInBytes(c.getValue()).signum() <= 0;
  }
}
