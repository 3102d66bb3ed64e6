package dev.cnioperator.agent.dra;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.cri.plugin.ClaimRef;
import dev.cnioperator.cri.plugin.DraHandler;
import dev.cnioperator.cri.plugin.PrepareResult;
import dev.cnioperator.cri.plugin.PreparedDevice;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet's prepare and unprepare of the claims of pods that ask for a network (Dynamic
 * Resource Allocation). A network needs nothing injected into a container: the pod's attachment is
 * made by the runtime or Multus when its sandbox starts. So prepare is the last word before the pod
 * starts: a claim on a network that is not proven on this node now (a broken edit since the
 * scheduler allocated it, say) is refused with why, and the kubelet tries again; a claim on a
 * proven one is prepared with its devices and no CDI device. Nothing on the node is made for a
 * claim, so unprepare has nothing to undo there; the claim is only remembered ({@link
 * PreparedClaims}) until then, for the count of addresses the node publishes and for the status of
 * its devices ({@link ClaimStatusWriter}).
 */
public final class NetworkClaims implements DraHandler {
  private static final Logger LOG = LoggerFactory.getLogger(NetworkClaims.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final Function<String, Device> published;
  private final PreparedClaims prepared;
  private final ClaimStatusWriter statuses;

  /**
   * @param published the device this node publishes now under a name, null when none
   * @param prepared where the claims prepared and not yet unprepared are kept
   * @param statuses told when a claim is unprepared
   */
  public NetworkClaims(
      KubernetesClient client,
      String nodeName,
      Function<String, Device> published,
      PreparedClaims prepared,
      ClaimStatusWriter statuses) {
    this.client = client;
    this.nodeName = nodeName;
    this.published = published;
    this.prepared = prepared;
    this.statuses = statuses;
  }

  @Override
  public Map<String, PrepareResult> prepare(List<ClaimRef> claims) {
    Map<String, PrepareResult> results = new HashMap<>();
    for (ClaimRef ref : claims) {
      PrepareResult r = prepare(ref);
      results.put(ref.uid(), r);
      if (r.isFailed()) {
        LOG.info(
            "event=claim-not-prepared claim={}/{} error=\"{}\"",
            ref.namespace(),
            ref.name(),
            r.error());
      } else {
        LOG.info(
            "event=claim-prepared claim={}/{} devices={}",
            ref.namespace(),
            ref.name(),
            r.devices().stream().map(PreparedDevice::deviceName).toList());
      }
    }
    return results;
  }

  private PrepareResult prepare(ClaimRef ref) {
    ResourceClaim claim =
        client
            .dynamicResourceAllocation()
            .v1()
            .resourceClaims()
            .inNamespace(ref.namespace())
            .withName(ref.name())
            .get();
    if (claim == null || !ref.uid().equals(claim.getMetadata().getUid())) {
      return PrepareResult.failed(
          "ResourceClaim "
              + ref.namespace()
              + "/"
              + ref.name()
              + " (uid "
              + ref.uid()
              + ") is gone");
    }
    if (claim.getStatus() == null
        || claim.getStatus().getAllocation() == null
        || claim.getStatus().getAllocation().getDevices() == null) {
      return PrepareResult.failed(
          "ResourceClaim " + ref.namespace() + "/" + ref.name() + " is not allocated");
    }
    List<PreparedDevice> devices = new ArrayList<>();
    List<PreparedClaims.Allocation> allocated = new ArrayList<>();
    for (DeviceRequestAllocationResult r :
        claim.getStatus().getAllocation().getDevices().getResults()) {
      if (!NetworkDevices.DRIVER.equals(r.getDriver())) {
        continue;
      }
      if (!nodeName.equals(r.getPool())) {
        return PrepareResult.failed(
            "network "
                + r.getDevice()
                + " of ResourceClaim "
                + ref.namespace()
                + "/"
                + ref.name()
                + " was allocated on node "
                + r.getPool()
                + ", not on "
                + nodeName);
      }
      Device now = published.apply(r.getDevice());
      if (now == null) {
        return PrepareResult.failed(
            "network " + r.getDevice() + " is not published on node " + nodeName + " now");
      }
      if (now.getTaints() != null && !now.getTaints().isEmpty()) {
        return PrepareResult.failed(
            "network "
                + r.getDevice()
                + " is not proven on node "
                + nodeName
                + " now ("
                + now.getTaints().get(0).getValue()
                + "): the pod starts once it is");
      }
      devices.add(
          new PreparedDevice(
              List.of(r.getRequest()), r.getPool(), r.getDevice(), List.of(), r.getShareID()));
      allocated.add(new PreparedClaims.Allocation(r.getDevice(), r.getShareID()));
    }
    List<String> pods =
        claim.getStatus().getReservedFor() == null
            ? List.of()
            : claim.getStatus().getReservedFor().stream()
                .filter(c -> "pods".equals(c.getResource()))
                .map(c -> c.getUid())
                .toList();
    prepared.prepared(
        new PreparedClaims.Claim(
            ref.uid(),
            ref.namespace(),
            ref.name(),
            devices.stream().map(PreparedDevice::deviceName).distinct().toList(),
            pods,
            allocated));
    return PrepareResult.prepared(devices);
  }

  /** Nothing was made for a claim on the node: it is only forgotten. */
  @Override
  public Map<String, String> unprepare(List<ClaimRef> claims) {
    Map<String, String> results = new HashMap<>();
    for (ClaimRef ref : claims) {
      prepared.unprepared(ref.uid());
      statuses.unprepared(ref.uid());
      results.put(ref.uid(), "");
      LOG.info("event=claim-unprepared claim={}/{}", ref.namespace(), ref.name());
    }
    return results;
  }
}
