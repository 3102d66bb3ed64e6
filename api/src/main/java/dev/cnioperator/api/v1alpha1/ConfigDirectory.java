package dev.cnioperator.api.v1alpha1;

/** Which configuration directory of a node a network's file goes to. */
public enum ConfigDirectory {
  /** The container runtime's ({@code /etc/cni/net.d}): its first file is the default network. */
  Runtime,
  /**
   * Multus's ({@code /etc/cni/multus/net.d}), read only for config-less
   * NetworkAttachmentDefinitions, matched by the configuration's name.
   */
  Multus
}
