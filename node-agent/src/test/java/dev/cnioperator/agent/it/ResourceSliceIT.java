package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.NetworkCheck;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.RolloutProbe;
import dev.cnioperator.cri.dra.v1.Claim;
import dev.cnioperator.cri.dra.v1.DRAPluginGrpc;
import dev.cnioperator.cri.dra.v1.NodePrepareResourceResponse;
import dev.cnioperator.cri.dra.v1.NodePrepareResourcesRequest;
import dev.cnioperator.cri.dra.v1.NodeUnprepareResourceResponse;
import dev.cnioperator.cri.dra.v1.NodeUnprepareResourcesRequest;
import dev.cnioperator.cri.pluginregistration.InfoRequest;
import dev.cnioperator.cri.pluginregistration.PluginInfo;
import dev.cnioperator.cri.pluginregistration.RegistrationGrpc;
import dev.cnioperator.cri.pluginregistration.RegistrationStatus;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatusBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 55.1: the agent publishes each network its CniNode asks for as a device of its node's
 * ResourceSlice, against a real API server serving resource.k8s.io/v1: untainted while proven, with
 * host-local's free addresses as capacity; tainted NoSchedule with why while not; written only on a
 * change, again after the slice is deleted (as the kubelet does when it starts), and deleted when
 * no network is published.
 */
class ResourceSliceIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private String network;
  private String prefix;
  private Attachments attachments;
  private final List<Pod> pods = new ArrayList<>();
  private final List<NetworkNamespace> namespaces = new ArrayList<>();

  /** The kubelet's root dir the agent serves its DRA plugin in: short, for the socket paths. */
  private Path kubeletDir;

  private ResourceClaim claim;

  @BeforeEach
  void setUp() throws Exception {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("rs", ToolPaths.pluginDir());
    network = TestNames.unique("rs");
    prefix = "10.211." + ThreadLocalRandom.current().nextInt(256) + ".";
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    for (int i = 0; i < pods.size(); i++) {
      attachments.delQuietly(pods.get(i), namespaces.get(i));
    }
    namespaces.forEach(NetworkNamespace::close);
    pods.forEach(p -> Pods.delete(cp.client(), p.getMetadata().getName()));
    cniNodes.delete(node.name);
    cp.client().resources(ResourceSlice.class).withName(sliceName()).delete();
    if (claim != null) {
      cp.client().resource(claim).delete();
    }
    node.close();
    if (kubeletDir != null) {
      try (Stream<Path> files = Files.walk(kubeletDir)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  /**
   * A ptp network whose host-local hands out six addresses, .2 to .7 (the gateway, .1, is outside
   * the range); a bridge MTU of 70000 makes its probe fail at ADD.
   */
  private String content(int mtu) {
    return "{\"cniVersion\":\"1.0.0\",\"name\":\""
        + network
        + "\",\"plugins\":[{\"type\":\"ptp\",\"mtu\":"
        + mtu
        + ",\"ipam\":{\"type\":\"host-local\",\"ranges\":[[{\"subnet\":\""
        + prefix
        + "0/28\",\"rangeStart\":\""
        + prefix
        + "2\",\"rangeEnd\":\""
        + prefix
        + "7\"}]],\"dataDir\":\""
        + node.root.resolve("var/lib/cni/networks")
        + "\"}}]}";
  }

  private NodeNetwork spec(int mtu, Boolean publish) {
    return CniNodes.network(network, 50, content(mtu))
        .setRevision(Integer.toHexString(mtu).repeat(64).substring(0, 64))
        .setProbe(new RolloutProbe().setEnabled(true))
        .setCheck(new NetworkCheck().setEnabled(true).setIntervalSeconds(5))
        .setIpamCleanup(new IpamCleanup().setEnabled(true).setGracePeriodSeconds(60))
        .setPublishDevice(publish);
  }

  private String sliceName() {
    return node.name + "-" + NetworkDevices.DRIVER;
  }

  private Optional<ResourceSlice> slice() {
    return Optional.ofNullable(
        cp.client().resources(ResourceSlice.class).withName(sliceName()).get());
  }

  private Optional<Device> device() {
    return slice().flatMap(s -> s.getSpec().getDevices().stream().findFirst());
  }

  private static long addresses(Device d) {
    return d.getCapacity() == null
            || !d.getCapacity().containsKey(NetworkDevices.CAPACITY_ADDRESSES)
        ? -1
        : Quantity.getAmountInBytes(
                d.getCapacity().get(NetworkDevices.CAPACITY_ADDRESSES).getValue())
            .longValue();
  }

  private static boolean untainted(Device d) {
    return d.getTaints() == null || d.getTaints().isEmpty();
  }

  @Test
  void aPublishedNetworkIsADeviceOfItsNodesSliceWithItsFreeAddresses() throws Exception {
    NodeNetwork spec = spec(1400, true);
    cniNodes.put(node.name, List.of(spec));
    agent =
        AgentProcess.start(
            node.name,
            node.paths.withNetnsDir(Path.of("/var/run/netns")),
            cp.kubeconfigFile(),
            node.log());

    Device proven =
        await("the device, proven, with six addresses")
            .atMost(CONVERGE)
            .until(
                this::device, d -> d.isPresent() && untainted(d.get()) && addresses(d.get()) == 6)
            .get();
    ResourceSlice slice = slice().orElseThrow();
    assertThat(slice.getSpec().getDriver()).isEqualTo(NetworkDevices.DRIVER);
    assertThat(slice.getSpec().getNodeName()).isEqualTo(node.name);
    assertThat(slice.getSpec().getPool().getName()).isEqualTo(node.name);
    assertThat(proven.getName()).isEqualTo(network);
    assertThat(proven.getAllowMultipleAllocations()).isTrue();
    assertThat(proven.getAttributes().get(NetworkDevices.ATTRIBUTE_PROVEN).getBool()).isTrue();
    assertThat(proven.getAttributes().get(NetworkDevices.ATTRIBUTE_REVISION).getString())
        .isEqualTo(spec.getRevision());

    // Two pods take two of the six addresses.
    attachments = new Attachments(node.paths.binDir(), node.paths.cacheDir(null), content(1400));
    for (int i = 0; i < 2; i++) {
      Pod pod = Pods.create(cp.client(), node.name, TestNames.unique("rs" + i));
      NetworkNamespace ns = NetworkNamespace.create("rs" + i);
      pods.add(pod);
      namespaces.add(ns);
      attachments.add(pod, ns);
    }
    await("four addresses left")
        .atMost(CONVERGE)
        .until(() -> device().map(ResourceSliceIT::addresses).orElse(-1L) == 4);

    // A quiet node writes nothing: three CHECK and cleanup rounds later the slice is as it was.
    String quiet = slice().orElseThrow().getMetadata().getResourceVersion();
    Thread.sleep(16_000);
    assertThat(slice().orElseThrow().getMetadata().getResourceVersion()).isEqualTo(quiet);

    // Deleted, as the kubelet deletes every slice of its node when it starts: published again.
    cp.client().resources(ResourceSlice.class).withName(sliceName()).delete();
    await("the slice published again")
        .atMost(CONVERGE)
        .until(
            () ->
                slice()
                    .filter(s -> !quiet.equals(s.getMetadata().getResourceVersion()))
                    .flatMap(s -> s.getSpec().getDevices().stream().findFirst())
                    .filter(d -> untainted(d) && addresses(d) == 4)
                    .isPresent());

    // No network published any more: no slice.
    cniNodes.put(node.name, List.of(spec(1400, null)));
    await("the slice deleted").atMost(CONVERGE).until(() -> slice().isEmpty());
    assertThat(agent.log()).contains("event=resource-slice-deleted");
  }

  @Test
  void aNetworkWhoseProbeFailsIsTaintedUntilItsContentIsProvenAgain() throws Exception {
    cniNodes.put(node.name, List.of(spec(1400, true)));
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log());
    await("proven")
        .atMost(CONVERGE)
        .until(() -> device().filter(ResourceSliceIT::untainted).isPresent());

    // A broken edit: its probe fails at ADD, and the device says so to the scheduler.
    cniNodes.put(node.name, List.of(spec(70000, true)));
    DeviceTaint taint =
        await("tainted")
            .atMost(CONVERGE)
            .until(
                () -> device().filter(d -> !untainted(d)).map(d -> d.getTaints().get(0)),
                Optional::isPresent)
            .get();
    assertThat(taint.getKey()).isEqualTo(NetworkDevices.TAINT_NOT_PROVEN);
    assertThat(taint.getEffect()).isEqualTo("NoSchedule");
    assertThat(taint.getValue()).isIn("ProbeFailed", "Proving", "Pending");
    await("ProbeFailed")
        .atMost(CONVERGE)
        .until(
            () ->
                device()
                    .map(
                        d ->
                            d.getTaints() != null
                                && !d.getTaints().isEmpty()
                                && "ProbeFailed".equals(d.getTaints().get(0).getValue()))
                    .orElse(false));
    assertThat(
            device().orElseThrow().getAttributes().get(NetworkDevices.ATTRIBUTE_PROVEN).getBool())
        .isFalse();
    // Tainted before the broken file was written, not once its probe failed: the last slice write
    // before the second file is the one that took the proof away.
    List<String> lines = agent.log().lines().toList();
    int secondFile =
        lines.stream()
            .filter(l -> l.contains("event=conflist-written"))
            .skip(1)
            .findFirst()
            .map(lines::indexOf)
            .orElseThrow();
    String lastWrite =
        lines.subList(0, secondFile).stream()
            .filter(l -> l.contains("event=resource-slice-"))
            .reduce((a, b) -> b)
            .orElseThrow();
    assertThat(lastWrite)
        .contains("event=resource-slice-updated")
        .contains("notProven=[" + network + ":Pending]");

    // Rolled back, as the operator does after a failed canary: proven again, untainted again.
    cniNodes.put(node.name, List.of(spec(1400, true)));
    await("proven again")
        .atMost(CONVERGE)
        .until(() -> device().filter(ResourceSliceIT::untainted).isPresent());
  }

  /**
   * Issue 55.3: the agent is the kubelet's DRA plugin for the networks driver. The test plays the
   * kubelet over the two sockets: the plugin registers, a claim allocated on the node's device is
   * prepared (no CDI device: the attachment is the runtime's or Multus's), and refused with why
   * while the network is not proven there; unprepare has nothing to undo; the sockets go with the
   * agent. Once prepared, the claim's status says what its pod got on the network (issue 55.3b),
   * written once.
   */
  @Test
  void aClaimOnTheNetworkIsPreparedOnlyWhileItIsProvenThere() throws Exception {
    kubeletDir = Files.createTempDirectory(Path.of("/tmp"), "ctkubelet");
    Files.createDirectories(kubeletDir.resolve("plugins_registry"));
    cniNodes.put(node.name, List.of(spec(1400, true)));
    agent =
        AgentProcess.start(
            node.name,
            node.paths.withNetnsDir(Path.of("/var/run/netns")),
            cp.kubeconfigFile(),
            node.log(),
            "--kubelet-dir",
            kubeletDir.toString());
    await("proven")
        .atMost(CONVERGE)
        .until(() -> device().filter(ResourceSliceIT::untainted).isPresent());
    // A pod on the network: one of the six addresses is taken, by a pod the scheduler has not
    // counted yet.
    attachments = new Attachments(node.paths.binDir(), node.paths.cacheDir(null), content(1400));
    Pod claiming = Pods.create(cp.client(), node.name, TestNames.unique("rsc"));
    NetworkNamespace ns = NetworkNamespace.create("rsc");
    pods.add(claiming);
    namespaces.add(ns);
    attachments.add(claiming, ns);
    await("five addresses left")
        .atMost(CONVERGE)
        .until(() -> device().map(ResourceSliceIT::addresses).orElse(-1L) == 5);

    Path registration =
        kubeletDir.resolve("plugins_registry/" + NetworkDevices.DRIVER + "-reg.sock");
    await("the registration socket").atMost(CONVERGE).until(() -> Files.exists(registration));
    claim = allocatedClaim(claiming);
    try (KubeletSide kubelet = new KubeletSide(registration)) {
      PluginInfo info = kubelet.registration.getInfo(InfoRequest.getDefaultInstance());
      assertThat(info.getType()).isEqualTo("DRAPlugin");
      assertThat(info.getName()).isEqualTo(NetworkDevices.DRIVER);
      assertThat(info.getSupportedVersionsList()).contains("v1.DRAPlugin");
      kubelet.registration.notifyRegistrationStatus(
          RegistrationStatus.newBuilder().setPluginRegistered(true).build());

      try (KubeletSide dra = new KubeletSide(Path.of(info.getEndpoint()))) {
        NodePrepareResourceResponse prepared = dra.prepare(claim);
        assertThat(prepared.getError()).isEmpty();
        assertThat(prepared.getDevicesList())
            .singleElement()
            .satisfies(
                d -> {
                  assertThat(d.getDeviceName()).isEqualTo(network);
                  assertThat(d.getPoolName()).isEqualTo(node.name);
                  assertThat(d.getRequestNamesList()).containsExactly("network");
                  assertThat(d.getCdiDeviceIdsList()).isEmpty();
                });
        // The pod's claim is prepared: the scheduler counts its address against the capacity
        // itself, so the agent gives it back.
        await("six claimable again")
            .atMost(CONVERGE)
            .until(() -> device().map(ResourceSliceIT::addresses).orElse(-1L) == 6);

        // Issue 55.3b: the claim says where its pod is on the network, from the pod's attachment.
        AllocatedDeviceStatus where =
            await("the claim's status of its pod's attachment")
                .atMost(CONVERGE)
                .until(this::claimDevices, d -> !d.isEmpty())
                .get(0);
        assertThat(claimDevices()).hasSize(1);
        assertThat(where.getDriver()).isEqualTo(NetworkDevices.DRIVER);
        assertThat(where.getPool()).isEqualTo(node.name);
        assertThat(where.getDevice()).isEqualTo(network);
        assertThat(where.getNetworkData().getInterfaceName()).isEqualTo("eth0");
        assertThat(where.getNetworkData().getIps())
            .singleElement()
            .asString()
            .matches(Pattern.quote(prefix) + "[2-7]/28");
        assertThat(where.getNetworkData().getHardwareAddress())
            .matches("[0-9a-f]{2}(:[0-9a-f]{2}){5}");
        // A quiet node writes nothing: two cleanup rounds later the claim is as it was.
        String written = claimNow().getMetadata().getResourceVersion();
        Thread.sleep(12_000);
        assertThat(claimNow().getMetadata().getResourceVersion()).isEqualTo(written);
        assertThat(agent.log().lines().filter(l -> l.contains("event=claim-status-written")))
            .singleElement()
            .asString()
            .contains("claim=default/" + claim.getMetadata().getName());
        // Written by server-side apply of the status, under the node's and the network's manager.
        assertThat(claimNow().getMetadata().getManagedFields())
            .anySatisfy(
                f -> {
                  assertThat(f.getManager())
                      .isEqualTo(NetworkDevices.DRIVER + "/" + node.name + "/" + network);
                  assertThat(f.getOperation()).isEqualTo("Apply");
                  assertThat(f.getSubresource()).isEqualTo("status");
                });
        // The pod's attachment gone (its sandbox stopped), its entry is taken out; back, so is it.
        attachments.delQuietly(claiming, ns);
        await("the entry taken out").atMost(CONVERGE).until(() -> claimDevices().isEmpty());
        attachments.add(claiming, ns);
        await("the entry written again").atMost(CONVERGE).until(() -> claimDevices().size() == 1);

        // A broken edit: until the network is proven again, the kubelet is told why not.
        cniNodes.put(node.name, List.of(spec(70000, true)));
        await("tainted")
            .atMost(CONVERGE)
            .until(() -> device().filter(d -> !untainted(d)).isPresent());
        assertThat(dra.prepare(claim).getError())
            .contains("network " + network + " is not proven on node " + node.name + " now");

        assertThat(dra.unprepare(claim).getError()).isEmpty();
        // Unprepared (the pod goes): its address, while it holds one, is not the scheduler's.
        cniNodes.put(node.name, List.of(spec(1400, true)));
        await("five claimable after the unprepare")
            .atMost(CONVERGE)
            .until(() -> device().map(ResourceSliceIT::addresses).orElse(-1L) == 5);
      }
    }
    agent.close();
    agent = null;
    assertThat(registration).doesNotExist();
    assertThat(kubeletDir.resolve("plugins/" + NetworkDevices.DRIVER + "/dra.sock")).doesNotExist();
  }

  /** The test's claim as the API server holds it now. */
  private ResourceClaim claimNow() {
    return cp.client().resource(claim).get();
  }

  /** The claim's status.devices now. */
  private List<AllocatedDeviceStatus> claimDevices() {
    ResourceClaim now = claimNow();
    return now == null || now.getStatus() == null || now.getStatus().getDevices() == null
        ? List.of()
        : now.getStatus().getDevices();
  }

  /**
   * A claim of one device of this network on this node, allocated and reserved for {@code pod} as
   * the scheduler does.
   */
  private ResourceClaim allocatedClaim(Pod pod) {
    ResourceClaim created =
        cp.client()
            .resource(
                new ResourceClaimBuilder()
                    .withNewMetadata()
                    .withName(TestNames.unique("claim"))
                    .withNamespace("default")
                    .endMetadata()
                    .withNewSpec()
                    .withNewDevices()
                    .addNewRequest()
                    .withName("network")
                    .withNewExactly()
                    .withDeviceClassName(network + "." + NetworkDevices.DRIVER)
                    .endExactly()
                    .endRequest()
                    .endDevices()
                    .endSpec()
                    .build())
            .create();
    created.setStatus(
        new ResourceClaimStatusBuilder()
            .withNewAllocation()
            .withNewDevices()
            .addNewResult()
            .withRequest("network")
            .withDriver(NetworkDevices.DRIVER)
            .withPool(node.name)
            .withDevice(network)
            .endResult()
            .endDevices()
            .endAllocation()
            .addNewReservedFor()
            .withResource("pods")
            .withName(pod.getMetadata().getName())
            .withUid(pod.getMetadata().getUid())
            .endReservedFor()
            .build());
    return cp.client().resource(created).updateStatus();
  }

  /** What the kubelet holds of a plugin: a gRPC channel to one of its sockets. */
  private static final class KubeletSide implements AutoCloseable {
    private final EpollEventLoopGroup loop = new EpollEventLoopGroup(1);
    private final ManagedChannel channel;
    final RegistrationGrpc.RegistrationBlockingStub registration;
    final DRAPluginGrpc.DRAPluginBlockingStub dra;

    KubeletSide(Path socket) {
      channel =
          NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
              .eventLoopGroup(loop)
              .channelType(EpollDomainSocketChannel.class)
              .usePlaintext()
              .build();
      registration = RegistrationGrpc.newBlockingStub(channel);
      dra = DRAPluginGrpc.newBlockingStub(channel);
    }

    NodePrepareResourceResponse prepare(ResourceClaim c) {
      return dra.withDeadlineAfter(45, TimeUnit.SECONDS)
          .nodePrepareResources(
              NodePrepareResourcesRequest.newBuilder().addClaims(claimOf(c)).build())
          .getClaimsOrThrow(c.getMetadata().getUid());
    }

    NodeUnprepareResourceResponse unprepare(ResourceClaim c) {
      return dra.withDeadlineAfter(45, TimeUnit.SECONDS)
          .nodeUnprepareResources(
              NodeUnprepareResourcesRequest.newBuilder().addClaims(claimOf(c)).build())
          .getClaimsOrThrow(c.getMetadata().getUid());
    }

    private static Claim claimOf(ResourceClaim c) {
      return Claim.newBuilder()
          .setNamespace(c.getMetadata().getNamespace())
          .setName(c.getMetadata().getName())
          .setUid(c.getMetadata().getUid())
          .build();
    }

    @Override
    public void close() throws InterruptedException {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      loop.shutdownGracefully().await(5, TimeUnit.SECONDS);
    }
  }
}
