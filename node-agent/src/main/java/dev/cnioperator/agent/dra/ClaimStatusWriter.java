package dev.cnioperator.agent.dra;

import dev.cnioperator.agent.network.AttachmentRuntimes;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.runtime.client.CallDeadline;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes what the pods of this node's prepared claims got on the networks they claimed into those
 * claims' {@code status.devices} ({@link ClaimDeviceStatus}), so that {@code kubectl get
 * resourceclaim -o yaml} says where a pod is on a network.
 *
 * <p>Runs on the network's own runs ({@link #write(ManagedNetwork)}), which the network's loop
 * makes as often as its cleanup, or its CHECK where cleanup is off: an attachment added by a pod's
 * sandbox is in its claim's status within that interval (seconds to a minute), and one removed is
 * taken out of it. A network's entries of a claim are written only when they differ from what this
 * agent last wrote for them, so a quiet node writes nothing; a write that fails is logged and made
 * again on the network's next run. What was written is remembered in memory until the kubelet
 * unprepares the claim: after a restart each claim's entries are written once more (the same, so
 * the API server keeps the claim as it is).
 *
 * <p>Each write is a server-side apply of the status subresource, holding only the claim's entries
 * of this driver for one network, under a field manager of the node and the network ({@link
 * #fieldManager}): the entries are a map keyed by driver, pool, device and share, so an apply sets
 * only its own and takes out only those it set before, never another driver's, another node's or
 * another network's. The API server checks each write against the claim's allocation (an entry of a
 * device not allocated is refused) and, for a pod's ServiceAccount, against the node the claim is
 * allocated on ({@code resourceclaims/driver}, verb {@code associated-node:patch}).
 */
public final class ClaimStatusWriter {
  private static final Logger LOG = LoggerFactory.getLogger(ClaimStatusWriter.class);

  /** The API server's limit on a field manager's name. */
  static final int MAX_FIELD_MANAGER = 128;

  /** Applies one network's entries of one claim; throws what the API server answered. */
  @FunctionalInterface
  interface Applier {
    void apply(
        PreparedClaims.Claim claim, String fieldManager, List<AllocatedDeviceStatus> entries);
  }

  /** One network's entries of one claim. */
  private record Key(String claim, String network) {}

  private final String nodeName;
  private final PreparedClaims prepared;
  private final AttachmentRuntimes runtimes;
  private final Applier applier;

  /** What this agent last wrote, by claim and network; a network's runs never run at once. */
  private final Map<Key, List<AllocatedDeviceStatus>> written = new ConcurrentHashMap<>();

  ClaimStatusWriter(
      String nodeName, PreparedClaims prepared, AttachmentRuntimes runtimes, Applier applier) {
    this.nodeName = nodeName;
    this.prepared = prepared;
    this.runtimes = runtimes;
    this.applier = applier;
  }

  /**
   * @param deadline the most one write may take
   */
  public static ClaimStatusWriter of(
      KubernetesClient client,
      String nodeName,
      PreparedClaims prepared,
      AttachmentRuntimes runtimes,
      CallDeadline deadline) {
    return new ClaimStatusWriter(
        nodeName,
        prepared,
        runtimes,
        (claim, manager, entries) ->
            deadline.call(
                "apply the status of ResourceClaim " + claim.namespace() + "/" + claim.name(),
                () -> apply(client, claim, manager, entries)));
  }

  /**
   * One network's pass: the entries of each prepared claim on {@code network}, from its cache
   * entries as they are now, written where they changed. Reads nothing when no prepared claim is on
   * the network.
   */
  public void write(ManagedNetwork network) {
    write(
        network.name(),
        () ->
            runtimes.cached(network).stream()
                .map(AttachmentRuntimes.Cached::entry)
                .collect(Collectors.toList()));
  }

  void write(String network, Supplier<List<CachedAttachment>> cache) {
    List<PreparedClaims.Claim> claims = prepared.snapshot();
    Set<String> uids = claims.stream().map(PreparedClaims.Claim::uid).collect(Collectors.toSet());
    written.keySet().removeIf(k -> !uids.contains(k.claim()));
    List<PreparedClaims.Claim> on =
        claims.stream().filter(c -> c.networks().contains(network)).toList();
    if (on.isEmpty()) {
      return;
    }
    List<CachedAttachment> entries = cache.get();
    for (PreparedClaims.Claim claim : on) {
      List<AllocatedDeviceStatus> wanted = ClaimDeviceStatus.of(claim, network, nodeName, entries);
      Key key = new Key(claim.uid(), network);
      List<AllocatedDeviceStatus> last = written.get(key);
      // Nothing written yet and nothing to write: the claim's status is left as it is.
      if (last == null ? wanted.isEmpty() : last.equals(wanted)) {
        continue;
      }
      try {
        applier.apply(claim, fieldManager(nodeName, network), wanted);
        written.put(key, wanted);
        LOG.info(
            "event=claim-status-written claim={}/{} network={} devices={}",
            claim.namespace(),
            claim.name(),
            network,
            ClaimDeviceStatus.shown(wanted));
      } catch (KubernetesClientException e) {
        LOG.warn(
            "event=claim-status-not-written claim={}/{} network={} devices={} error=\"{}\"",
            claim.namespace(),
            claim.name(),
            network,
            ClaimDeviceStatus.shown(wanted),
            e.getMessage());
      }
    }
  }

  /** The kubelet unprepared the claim of {@code uid}: what was written for it is forgotten. */
  public void unprepared(String uid) {
    written.keySet().removeIf(k -> k.claim().equals(uid));
  }

  /**
   * The field manager of {@code network}'s entries on {@code node}: {@code
   * networks.cnioperator.dev/<node>/<network>}, the node's name replaced by a hash of it where the
   * whole would be longer than the API server takes.
   */
  static String fieldManager(String node, String network) {
    String manager = NetworkDevices.DRIVER + "/" + node + "/" + network;
    if (manager.length() <= MAX_FIELD_MANAGER) {
      return manager;
    }
    String hash = Sha256.hex(node.getBytes(StandardCharsets.UTF_8)).substring(0, 16);
    return NetworkDevices.DRIVER + "/" + hash + "/" + network;
  }

  /**
   * What an apply sends: the claim's name, namespace and uid, and {@code entries} as its whole
   * {@code status}. The uid goes with it so that a claim deleted and created again under the same
   * name is not written for the old one (the API server refuses another uid).
   */
  static ResourceClaim body(PreparedClaims.Claim claim, List<AllocatedDeviceStatus> entries) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName(claim.name())
        .withNamespace(claim.namespace())
        .withUid(claim.uid())
        .endMetadata()
        .withNewStatus()
        .withDevices(entries)
        .endStatus()
        .build();
  }

  /**
   * A server-side apply of the claim's status subresource with only {@code entries} in it; an empty
   * list takes out the entries this manager set.
   */
  private static ResourceClaim apply(
      KubernetesClient client,
      PreparedClaims.Claim claim,
      String manager,
      List<AllocatedDeviceStatus> entries) {
    ResourceClaim body = body(claim, entries);
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(claim.namespace())
        .withName(claim.name())
        .subresource("status")
        .patch(
            new PatchContext.Builder()
                .withPatchType(PatchType.SERVER_SIDE_APPLY)
                .withFieldManager(manager)
                .withForce(true)
                .build(),
            body);
  }
}
