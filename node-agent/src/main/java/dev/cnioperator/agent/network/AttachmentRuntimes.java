package dev.cnioperator.agent.network;

import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.runtime.CniRuntime;
import java.util.ArrayList;
import java.util.List;

/**
 * The libcni runtimes, and with them the result caches, that a network's attachments are in. The
 * container runtime's libcni caches the attachments of a network of its own directory under {@code
 * --cache-dir}. Multus runs every network it attaches with libcni on its own cache (its {@code
 * cniDir}, {@code --multus-cache-dir}), in the same format under the same names ({@code
 * results/<network>-<container>-<ifname>}): a secondary network's attachments, and, on a node where
 * Multus is the runtime's first configuration, the pod network's too (Multus's delegate), while the
 * runtime's cache then holds only its call to Multus. CHECK reads an attachment's cached result in
 * the cache it is in, and a cleanup DEL removes its entry there, as libcni would.
 *
 * @param runtime the container runtime's
 * @param multus Multus's
 */
public record AttachmentRuntimes(CniRuntime runtime, CniRuntime multus) {

  /** A cached attachment and the runtime whose cache holds it. */
  public record Cached(CniRuntime runtime, CachedAttachment entry) {}

  /**
   * The runtimes whose caches may hold {@code network}'s attachments: Multus's alone for a network
   * of Multus's directory; the container runtime's, then Multus's, for one of the runtime's.
   */
  public List<CniRuntime> of(ManagedNetwork network) {
    if (network.directory() == ConfigDirectory.Multus) {
      return List.of(multus);
    }
    return runtime == multus ? List.of(runtime) : List.of(runtime, multus);
  }

  /** The runtime that makes and removes what no cache entry names (a probe, a bare reservation). */
  public CniRuntime primary(ManagedNetwork network) {
    return of(network).get(0);
  }

  /** Every cached attachment of {@code network}, in each cache that may hold them. */
  public List<Cached> cached(ManagedNetwork network) {
    List<Cached> all = new ArrayList<>();
    for (CniRuntime r : of(network)) {
      for (CachedAttachment e : r.cache().list(network.list().name())) {
        all.add(new Cached(r, e));
      }
    }
    return all;
  }
}
