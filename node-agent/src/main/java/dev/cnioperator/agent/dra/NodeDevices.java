package dev.cnioperator.agent.dra;

import static dev.cnioperator.api.devices.NetworkDevices.ATTRIBUTE_CNI_VERSION;
import static dev.cnioperator.api.devices.NetworkDevices.ATTRIBUTE_NETWORK;
import static dev.cnioperator.api.devices.NetworkDevices.ATTRIBUTE_NETWORK_NAME;
import static dev.cnioperator.api.devices.NetworkDevices.ATTRIBUTE_PROVEN;
import static dev.cnioperator.api.devices.NetworkDevices.ATTRIBUTE_REVISION;
import static dev.cnioperator.api.devices.NetworkDevices.ATTRIBUTE_STATE;
import static dev.cnioperator.api.devices.NetworkDevices.CAPACITY_ADDRESSES;
import static dev.cnioperator.api.devices.NetworkDevices.TAINT_NOT_PROVEN;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.CapacityRequestPolicyBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The devices a node publishes to the scheduler (Dynamic Resource Allocation): one for each network
 * of its CniNode spec that asks for it ({@code publishDevice}) and that the node can have (content
 * rendered for it), named after the CniNetwork, shared by any number of pods, and judged from the
 * node's own status: untainted only while the spec's content is applied and proven there.
 *
 * <p>A projection of the CniNode and the agent's address counts, nothing else, so that an unchanged
 * node projects the same devices and its slice is not written.
 */
public final class NodeDevices {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A device's name is a DNS label (the CRD's CEL rule refuses a published network otherwise). */
  private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");

  /** The attribute string values the API server takes, at most (resource.k8s.io/v1). */
  private static final int MAX_STRING_ATTRIBUTE = 64;

  private NodeDevices() {}

  /**
   * Where a network stands on the node, for the scheduler.
   *
   * @param state the state attribute: the status's state, or Pending before the node has applied
   *     the spec's content
   * @param notProven the taint's value, why the network is not proven there; null when it is
   */
  record Judgement(String state, String notProven) {
    boolean proven() {
      return notProven == null;
    }
  }

  /**
   * @param claimableAddresses the addresses pods that claim each network may take on the node, by
   *     CniNetwork name, where the agent can count them (host-local): the device's capacity
   * @return the devices, in the spec's order (by file name)
   */
  public static List<Device> of(
      CniNodeSpec spec, CniNodeStatus status, Function<String, OptionalLong> claimableAddresses) {
    List<Device> devices = new ArrayList<>();
    if (spec == null || spec.getNetworks() == null) {
      return devices;
    }
    for (NodeNetwork n : spec.getNetworks()) {
      if (!Boolean.TRUE.equals(n.getPublishDevice())
          || n.getContent() == null
          || !DNS_LABEL.matcher(n.getName()).matches()
          || n.getName().length() > 63) {
        continue;
      }
      Optional<NodeNetworkStatus> reported =
          status == null ? Optional.empty() : status.network(n.getName());
      devices.add(device(n, judge(n, reported), claimableAddresses.apply(n.getName())));
    }
    return devices;
  }

  /**
   * Proven: the node's status says the network Applied with exactly the spec's content, and a probe
   * of that content passed (the probe, or STATUS and CHECK where the probe is off). Anything else,
   * a content not yet written, a failed write or probe, a file taken over (Contested) or someone
   * else's (Conflict), is not proven, and the reason is the taint's value.
   */
  static Judgement judge(NodeNetwork spec, Optional<NodeNetworkStatus> reported) {
    if (reported.isEmpty() || reported.get().getState() == null) {
      return new Judgement("Pending", "Pending");
    }
    NodeNetworkStatus s = reported.get();
    if (s.getState() != NetworkState.Applied) {
      return new Judgement(s.getState().name(), s.getState().name());
    }
    if (!Objects.equals(spec.getSha256(), s.getAppliedSha256())) {
      return new Judgement("Pending", "Pending");
    }
    ProbeReport probe = s.getProbe();
    if (probe == null || !Objects.equals(spec.getSha256(), probe.getSha256())) {
      return new Judgement(s.getState().name(), "Proving");
    }
    if (probe.getResult() != ProbeResult.Passed) {
      return new Judgement(s.getState().name(), "ProbeFailed");
    }
    return new Judgement(s.getState().name(), null);
  }

  private static Device device(NodeNetwork n, Judgement j, OptionalLong free) {
    Map<String, DeviceAttribute> attributes = new TreeMap<>();
    attributes.put(ATTRIBUTE_NETWORK, string(n.getName()));
    networkName(n).ifPresent(name -> attributes.put(ATTRIBUTE_NETWORK_NAME, string(name)));
    if (n.getRevision() != null) {
      attributes.put(ATTRIBUTE_REVISION, string(n.getRevision()));
    }
    if (n.getCniVersion() != null) {
      attributes.put(
          ATTRIBUTE_CNI_VERSION,
          new DeviceAttributeBuilder().withVersion(n.getCniVersion().text()).build());
    }
    attributes.put(ATTRIBUTE_STATE, string(j.state()));
    attributes.put(ATTRIBUTE_PROVEN, new DeviceAttributeBuilder().withBool(j.proven()).build());
    DeviceBuilder device =
        new DeviceBuilder()
            .withName(n.getName())
            .withAttributes(attributes)
            // A network is shared: every pod that claims it is allocated the same device.
            .withAllowMultipleAllocations(true);
    if (free.isPresent()) {
      device.withCapacity(Map.of(CAPACITY_ADDRESSES, addresses(free.getAsLong())));
    }
    if (!j.proven()) {
      device.withTaints(
          new DeviceTaintBuilder()
              .withKey(TAINT_NOT_PROVEN)
              .withValue(j.notProven())
              .withEffect("NoSchedule")
              .build());
    }
    return device.build();
  }

  /** One address per attachment, unless a claim asks for more (several interfaces on it). */
  private static DeviceCapacity addresses(long count) {
    return new DeviceCapacityBuilder()
        .withValue(new Quantity(Long.toString(Math.max(0, count))))
        .withRequestPolicy(
            new CapacityRequestPolicyBuilder()
                .withDefault(new Quantity("1"))
                .withNewValidRange()
                .withMin(new Quantity("1"))
                .endValidRange()
                .build())
        .build();
  }

  private static DeviceAttribute string(String value) {
    return new DeviceAttributeBuilder().withString(value).build();
  }

  /** The conflist's name, when the content says it and it fits an attribute. */
  private static Optional<String> networkName(NodeNetwork n) {
    try {
      String name = JSON.readTree(n.getContent()).path("name").asText("");
      return name.isEmpty() || name.length() > MAX_STRING_ATTRIBUTE
          ? Optional.empty()
          : Optional.of(name);
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }
}
