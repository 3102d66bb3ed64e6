package dev.cnioperator.api.devices;

/**
 * The names under which networks are published to the scheduler as devices (Dynamic Resource
 * Allocation, {@code resource.k8s.io/v1}): one driver, one pool per node, one device per published
 * network there, named after its CniNetwork. Shared by the agent, which publishes its node's
 * devices, and the operator, which makes the classes pods request them by.
 */
public final class NetworkDevices {

  /** The DRA driver: the devices' {@code driver}, and the domain of their attributes. */
  public static final String DRIVER = "networks.cnioperator.dev";

  /** The CniNetwork's metadata.name (a DNS label, as the device's name). */
  public static final String ATTRIBUTE_NETWORK = "network";

  /** The CNI network name in the conflist ({@code name}). */
  public static final String ATTRIBUTE_NETWORK_NAME = "networkName";

  /** The revision (sha256 of the network's template) the node holds. */
  public static final String ATTRIBUTE_REVISION = "revision";

  /** The conflist's cniVersion, as a version attribute. */
  public static final String ATTRIBUTE_CNI_VERSION = "cniVersion";

  /** The network's state in the node's CniNode status (Applied, Failed, ...), or Pending. */
  public static final String ATTRIBUTE_STATE = "state";

  /** Whether the node's current content of the network is applied and proven. */
  public static final String ATTRIBUTE_PROVEN = "proven";

  /** The addresses pods claiming the network may take on the node (host-local's, counted). */
  public static final String CAPACITY_ADDRESSES = "addresses";

  /** The key of the NoSchedule taint of a device whose network is not proven on its node. */
  public static final String TAINT_NOT_PROVEN = DRIVER + "/not-proven";

  private NetworkDevices() {}
}
