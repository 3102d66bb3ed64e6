package dev.cnioperator.agent.network;

import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.runtime.CniRuntime;

/**
 * The libcni runtime, and with it the result cache, that a network's attachments are in. The
 * container runtime's libcni caches the attachments of a network of its own directory under {@code
 * --cache-dir}; Multus makes the attachments of a secondary network with libcni on its own cache
 * (its {@code cniDir}, {@code --multus-cache-dir}), in the same format under the same names ({@code
 * results/<network>-<container>-<ifname>}). CHECK reads an attachment's cached result there, and a
 * cleanup DEL removes its entry there, as libcni would.
 *
 * @param runtime for networks of the runtime's directory
 * @param multus for networks of Multus's directory
 */
public record AttachmentRuntimes(CniRuntime runtime, CniRuntime multus) {

  /** The runtime whose cache holds {@code network}'s attachments. */
  public CniRuntime of(ManagedNetwork network) {
    return network.directory() == ConfigDirectory.Multus ? multus : runtime;
  }
}
