package dev.cnioperator.agent.dra;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.cni.io.Sha256;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's ResourceSlice of the networks driver: one pool named after the node, one slice, its
 * devices those {@link NodeDevices} projects. Written only when they differ from the slice the API
 * server holds, so a quiet node writes nothing; and written again when someone else changes or
 * deletes it: the kubelet deletes every slice of its node when it starts, and a driver's slices 30
 * seconds after the driver's plugin goes away.
 *
 * <p>Not watched until a network of the node is published: a cluster that does not use the feature
 * never reads the resource.k8s.io API. Belongs to the node loop's thread, but for the watch's
 * callback, which only asks for a pass.
 */
public final class NodeResourceSlice implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeResourceSlice.class);

  /** The most devices a slice may have when any of them has taints (resource.k8s.io/v1). */
  static final int MAX_DEVICES = 64;

  private static final int MAX_NAME = 253;

  private final KubernetesClient client;
  private final String nodeName;
  private final String sliceName;
  private final Runnable changedByOthers;
  private SharedIndexInformer<ResourceSlice> informer;
  private OwnerReference owner;

  /**
   * The slice as this agent last wrote it, until the watch delivers it or a newer one: a pass that
   * comes between a write and its event compares with what was written, not with the older slice.
   */
  private volatile ResourceSlice written;

  /**
   * The devices of the last write, as sent. The API server may store them otherwise (a field of a
   * newer release it drops); the slice it holds from that write is not written again for them.
   */
  private List<Device> writtenDevices;

  /** Whether the API server keeps a network device's fields; null until asked. */
  private Boolean supported;

  private String refusal;

  /**
   * @param changedByOthers asked for when the slice changes on the API server (the node loop runs a
   *     pass that calls {@link #publish} again)
   */
  public NodeResourceSlice(KubernetesClient client, String nodeName, Runnable changedByOthers) {
    this.client = client;
    this.nodeName = nodeName;
    this.sliceName = sliceName(nodeName);
    this.changedByOthers = changedByOthers;
  }

  /**
   * Whether the API server keeps what a network's device needs: a device allocated to many claims
   * (consumable capacity, on by default from Kubernetes 1.36) and device taints (1.36). An API
   * server without them drops the fields it does not know, which would publish a network as a
   * device one pod at a time can have, and a failing one as allocatable: then nothing is published,
   * and {@link #refusal} says why. Asked once, by a dry-run create (nothing is stored).
   */
  private boolean supported() {
    if (supported == null) {
      Device probe =
          new DeviceBuilder()
              .withName("probe")
              .withAllowMultipleAllocations(true)
              .addNewTaint()
              .withKey(NetworkDevices.TAINT_NOT_PROVEN)
              .withValue("Probe")
              .withEffect("NoSchedule")
              .endTaint()
              .build();
      ResourceSlice kept =
          client
              .resource(
                  slice(0, List.of(probe))
                      .withNewMetadata()
                      .withGenerateName("cni-operator-probe-")
                      .endMetadata()
                      .build())
              .dryRun()
              .create();
      Device back = kept.getSpec().getDevices().get(0);
      supported =
          Boolean.TRUE.equals(back.getAllowMultipleAllocations())
              && back.getTaints() != null
              && !back.getTaints().isEmpty();
      if (!supported) {
        List<String> dropped = new ArrayList<>();
        if (!Boolean.TRUE.equals(back.getAllowMultipleAllocations())) {
          dropped.add("a device's allowMultipleAllocations (consumable capacity)");
        }
        if (back.getTaints() == null || back.getTaints().isEmpty()) {
          dropped.add("a device's taints");
        }
        refusal =
            "networks are not published to the scheduler on this cluster: its API server drops "
                + String.join(" and ", dropped)
                + "; publishing needs Kubernetes 1.36 or later (feature gates DRAConsumableCapacity"
                + " and DRADeviceTaints, on by default there)";
        LOG.warn("event=devices-not-published node={} reason=\"{}\"", nodeName, refusal);
      }
    }
    return supported;
  }

  /** Why nothing is published on this cluster; empty while publishing works or was not tried. */
  public Optional<String> refusal() {
    return Optional.ofNullable(refusal);
  }

  /** The slice's name: the node's, with the driver's after it, shortened by a hash if too long. */
  static String sliceName(String nodeName) {
    String name = nodeName + "-" + NetworkDevices.DRIVER;
    if (name.length() <= MAX_NAME) {
      return name;
    }
    String hash = Sha256.hex(nodeName.getBytes(StandardCharsets.UTF_8)).substring(0, 16);
    int keep = MAX_NAME - NetworkDevices.DRIVER.length() - hash.length() - 2;
    return nodeName.substring(0, keep).replaceAll("[.-]+$", "")
        + "-"
        + hash
        + "-"
        + NetworkDevices.DRIVER;
  }

  /**
   * Makes the slice hold {@code devices}: created, updated, or deleted when there are none.
   *
   * @return true when it wrote
   */
  public boolean publish(List<Device> devices) {
    if (devices.isEmpty() && informer == null) {
      return false;
    }
    try {
      if (!devices.isEmpty() && !supported()) {
        return false;
      }
      watch();
      ResourceSlice held = newer(informer.getStore().getByKey(sliceName), written);
      if (devices.isEmpty()) {
        if (held == null) {
          return false;
        }
        client.resources(ResourceSlice.class).withName(sliceName).delete();
        written = null;
        LOG.info("event=resource-slice-deleted node={} slice={}", nodeName, sliceName);
        return true;
      }
      List<Device> published =
          devices.size() > MAX_DEVICES ? devices.subList(0, MAX_DEVICES) : devices;
      if (devices.size() > MAX_DEVICES) {
        LOG.warn(
            "event=devices-not-published node={} count={} reason=\"a slice holds {} devices at most\"",
            nodeName,
            devices.size() - MAX_DEVICES,
            MAX_DEVICES);
      }
      if (held != null
          && (sameDevices(held.getSpec().getDevices(), published) || asWritten(held, published))) {
        return false;
      }
      write(held, published);
      writtenDevices = published;
      return true;
    } catch (KubernetesClientException e) {
      // Tried again on the next pass (the resync at the latest), as the status write is.
      LOG.warn(
          "event=resource-slice-not-written node={} slice={} error=\"{}\"",
          nodeName,
          sliceName,
          e.getMessage());
      return false;
    }
  }

  /** A slice of the node's pool, alone in it, without metadata. */
  private ResourceSliceBuilder slice(long generation, List<Device> devices) {
    return new ResourceSliceBuilder()
        .withNewSpec()
        .withDriver(NetworkDevices.DRIVER)
        .withNodeName(nodeName)
        .withNewPool()
        .withName(nodeName)
        .withGeneration(generation)
        .withResourceSliceCount(1L)
        .endPool()
        .withDevices(devices)
        .endSpec();
  }

  private void write(ResourceSlice held, List<Device> devices) {
    long generation =
        held == null
                || held.getSpec().getPool() == null
                || held.getSpec().getPool().getGeneration() == null
            ? 1
            : held.getSpec().getPool().getGeneration() + 1;
    ResourceSliceBuilder slice =
        slice(generation, devices)
            .withNewMetadata()
            .withName(sliceName)
            .withOwnerReferences(owner())
            .endMetadata();
    if (held == null) {
      written = client.resource(slice.build()).create();
      LOG.info(
          "event=resource-slice-created node={} slice={} devices={} notProven={}",
          nodeName,
          sliceName,
          names(devices),
          tainted(devices));
    } else {
      slice
          .editMetadata()
          .withResourceVersion(held.getMetadata().getResourceVersion())
          .endMetadata();
      written = client.resource(slice.build()).update();
      LOG.info(
          "event=resource-slice-updated node={} slice={} generation={} devices={} notProven={}",
          nodeName,
          sliceName,
          generation,
          names(devices),
          tainted(devices));
    }
  }

  /**
   * The later of the slice the watch holds and the one this agent wrote, by resourceVersion (the
   * API server's are increasing numbers, from etcd's revision); the watch's when they cannot be
   * compared.
   */
  static ResourceSlice newer(ResourceSlice watched, ResourceSlice wrote) {
    if (wrote == null) {
      return watched;
    }
    if (watched == null) {
      // Deleted after the write (the watch said so and forgot the write) or not delivered yet.
      return wrote;
    }
    try {
      long a = Long.parseLong(watched.getMetadata().getResourceVersion());
      long b = Long.parseLong(wrote.getMetadata().getResourceVersion());
      return b > a ? wrote : watched;
    } catch (NumberFormatException e) {
      return watched;
    }
  }

  private static List<String> names(List<Device> devices) {
    return devices.stream().map(Device::getName).toList();
  }

  /** The tainted devices, with the taint's value: {@code macvlan:ProbeFailed}. */
  private static List<String> tainted(List<Device> devices) {
    return devices.stream()
        .filter(d -> d.getTaints() != null && !d.getTaints().isEmpty())
        .map(d -> d.getName() + ":" + d.getTaints().get(0).getValue())
        .toList();
  }

  /** The Node, so that the slice goes with it; none when the Node cannot be read. */
  private List<OwnerReference> owner() {
    if (owner == null) {
      Node node = client.nodes().withName(nodeName).get();
      if (node == null) {
        return List.of();
      }
      owner =
          new OwnerReferenceBuilder()
              .withApiVersion("v1")
              .withKind("Node")
              .withName(nodeName)
              .withUid(node.getMetadata().getUid())
              .withController(true)
              .build();
    }
    return List.of(owner);
  }

  /** {@code held} is the slice of this agent's last write, which sent {@code devices}. */
  private boolean asWritten(ResourceSlice held, List<Device> devices) {
    ResourceSlice w = written;
    return w != null
        && Objects.equals(
            w.getMetadata().getResourceVersion(), held.getMetadata().getResourceVersion())
        && devices.equals(writtenDevices);
  }

  /** The devices as the agent wrote them: the API server adds only the taints' time. */
  static boolean sameDevices(List<Device> held, List<Device> wanted) {
    return Objects.equals(
        held == null ? List.of() : held.stream().map(NodeResourceSlice::withoutTaintTimes).toList(),
        wanted);
  }

  private static Device withoutTaintTimes(Device d) {
    if (d.getTaints() == null || d.getTaints().isEmpty()) {
      return d;
    }
    List<DeviceTaint> taints =
        d.getTaints().stream()
            .map(t -> new DeviceTaintBuilder(t).withTimeAdded(null).build())
            .toList();
    return new DeviceBuilder(d).withTaints(taints).build();
  }

  private void watch() {
    if (informer != null) {
      return;
    }
    informer =
        client
            .resources(ResourceSlice.class)
            .withField("spec.nodeName", nodeName)
            .withField("spec.driver", NetworkDevices.DRIVER)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(ResourceSlice s) {}

                  @Override
                  public void onUpdate(ResourceSlice before, ResourceSlice now) {
                    if (!Objects.equals(
                        before.getMetadata().getResourceVersion(),
                        now.getMetadata().getResourceVersion())) {
                      changedByOthers.run();
                    }
                  }

                  @Override
                  public void onDelete(ResourceSlice s, boolean unknownFinalState) {
                    written = null;
                    LOG.info(
                        "event=resource-slice-gone node={} slice={}",
                        nodeName,
                        s.getMetadata().getName());
                    changedByOthers.run();
                  }
                },
                0);
    LOG.info("event=resource-slices-watched node={} driver={}", nodeName, NetworkDevices.DRIVER);
  }

  /** The slice as the watch last delivered it; empty before the watch or when there is none. */
  public Optional<ResourceSlice> held() {
    return informer == null
        ? Optional.empty()
        : Optional.ofNullable(informer.getStore().getByKey(sliceName));
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
    }
  }
}
