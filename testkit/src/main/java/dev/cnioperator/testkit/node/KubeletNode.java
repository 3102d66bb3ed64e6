package dev.cnioperator.testkit.node;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.testkit.Await;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.CgroupHierarchies;
import dev.cnioperator.testkit.containerd.ContainerdFixture;
import dev.cnioperator.testkit.containerd.ContainerdRelease;
import dev.cnioperator.testkit.containerd.HostDirs;
import dev.cnioperator.testkit.cri.NodeRuntime;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import dev.cnioperator.testkit.crio.CrioFixture;
import dev.cnioperator.testkit.crio.CrioRelease;
import dev.cnioperator.testkit.images.LocalRegistry;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real node on this machine: a kubelet and a container runtime of its own (a containerd release,
 * or CRI-O: {@link CrioFixture}), registered with a {@link LocalControlPlane} started by {@link
 * LocalControlPlane#startForNodes}.
 *
 * <p>The node has its own network namespace (a veth to a {@link NodeBridge}, its address there is
 * the node's InternalIP) and its own mount namespace, held by a {@code sleep} process: overlays on
 * {@code /etc} and {@code /opt} (so {@code /etc/cni/net.d} and {@code /opt/cni/bin} are the
 * node's), its own {@code /var/lib/cni}, {@code /run/netns} (where its containerd mounts the pod
 * sandboxes' network namespaces, as a default containerd does, so the agent finds them there) and
 * {@code /var/log} (pod logs and the {@code /var/log/containers} symlinks), all made shared inside
 * the node before containerd starts, so that {@code HostToContainer} hostPath volumes work.
 * containerd and kubelet are started into both namespaces with {@code nsenter}. A CRI-O node has an
 * overlay on {@code /var} too and a {@code /run} of its own (tmpfs), where CRI-O keeps its socket,
 * state and pinned namespaces at their defaults, and its image storage bound from the node's
 * directory (overlay mounts need a file system that is not an overlay). The kubelet authenticates
 * with a client certificate {@code O=system:nodes, CN=system:node:<name>} signed by the API
 * server's client CA.
 *
 * <p>The host's cgroups are v1 here, so the kubelet runs with the cgroupfs driver, no QoS cgroups
 * and no node allocatable enforcement, under a cgroup root of its own.
 *
 * <p>{@link #close} stops the kubelet, removes every pod sandbox through containerd (CNI DEL),
 * stops containerd, ends the mount namespace, removes the network namespace (and the veth), the
 * cgroups, the Node object and the node's directory.
 */
public final class KubeletNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeletNode.class);

  /**
   * The kubelet's root directory (its {@code --root-dir}, in the node's directory) as every node
   * shows it to its pods: bound at this path of the node's own {@code /opt}, so that one DaemonSet
   * value (the chart's agent.kubeletPlugin.rootDir) reaches each node's kubelet plugin registry,
   * and the DRA socket path the agent gives the kubelet is one the kubelet, in the node's mount
   * namespace, can dial. Nothing of it is on the machine's own paths.
   */
  public static final String KUBELET_DIR_IN_NODE = "/opt/kubelet";

  private static final Duration REGISTER_TIMEOUT = Duration.ofSeconds(90);
  private static final List<String> PLUGINS =
      List.of("bridge", "host-local", "loopback", "portmap");

  /**
   * The test kit's kubelet sync period: pods are synced again (and mounted ConfigMaps refreshed)
   * every 10 s, so that the tests wait less.
   */
  public static final Duration TEST_SYNC_FREQUENCY = Duration.ofSeconds(10);

  /** The kubelet's own default {@code syncFrequency}, as clusters run it. */
  public static final Duration KUBELET_DEFAULT_SYNC_FREQUENCY = Duration.ofMinutes(1);

  private final String name;
  private final String address;
  private final Path dir;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final LocalControlPlane controlPlane;
  private final Duration syncFrequency;
  private final List<String> cleanupProblems = new ArrayList<>();
  private NetworkNamespace netns;
  private String hostInterface;
  private Process holder;
  private RuntimeRelease release;
  private NodeRuntime runtime;
  private Path kubeletBinary;
  private List<String> kubeletArgs;
  private Process kubelet;
  private HostDirs.Hold hostRun;
  private HostDirs.Hold hostKubelet;
  private boolean closed;

  private KubeletNode(
      LocalControlPlane controlPlane,
      String name,
      String address,
      Path dir,
      Duration syncFrequency) {
    this.controlPlane = controlPlane;
    this.syncFrequency = syncFrequency;
    this.name = name;
    this.address = address;
    this.dir = dir;
  }

  /** As {@link #start(LocalControlPlane, NodeBridge, int, ContainerdRelease)} with 1.6. */
  public static KubeletNode start(LocalControlPlane controlPlane, NodeBridge bridge, int index) {
    return start(controlPlane, bridge, index, ContainerdRelease.DEBIAN_1_6);
  }

  /**
   * Starts node {@code index} on {@code bridge}, its runtime containerd {@code release}, and
   * returns once its Node object exists (NotReady until a CNI configuration is written into {@link
   * #cniConfDir}).
   */
  public static KubeletNode start(
      LocalControlPlane controlPlane, NodeBridge bridge, int index, ContainerdRelease release) {
    return start(
        controlPlane, bridge, index, release, TEST_SYNC_FREQUENCY, ToolPaths.kubelet(), null);
  }

  /**
   * Starts node {@code index} on {@code bridge}, its runtime {@code release}, the kubelet {@code
   * kubeletBinary} syncing its pods every {@code syncFrequency}, and returns once its Node object
   * exists (NotReady until a CNI configuration is written into {@link #cniConfDir}). A CRI-O node
   * pulls every image from {@code registry}, which its CRI-O trusts from the start; a containerd
   * node takes null (images imported, or a registry trusted later).
   */
  public static KubeletNode start(
      LocalControlPlane controlPlane,
      NodeBridge bridge,
      int index,
      RuntimeRelease release,
      Duration syncFrequency,
      Path kubeletBinary,
      LocalRegistry registry) {
    Prerequisites.requireRoot();
    for (String c : List.of("nsenter", "unshare", "openssl", "ip")) {
      Prerequisites.requireCommand(c);
    }
    Prerequisites.requireExecutable(kubeletBinary, "kubelet");
    String name = TestNames.unique("node");
    Path dir;
    try {
      dir = Files.createTempDirectory(Path.of("/tmp"), "ctn");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    KubeletNode node =
        new KubeletNode(controlPlane, name, bridge.nodeAddress(index), dir, syncFrequency);
    node.kubeletBinary = kubeletBinary;
    node.release = release;
    long t0 = System.nanoTime();
    try {
      if (release instanceof ContainerdRelease) {
        // The mount namespace makes the machine's /run/containerd, the mount point of its socket
        // dir.
        node.hostRun = HostDirs.RUN_CONTAINERD.hold();
      }
      node.hostKubelet = HostDirs.VAR_LIB_KUBELET.hold();
      node.startNetwork(bridge);
      node.startMountNamespace();
      node.installPlugins();
      node.runtime = node.startRuntime(registry);
      node.startKubelet(bridge);
      node.awaitRegistered();
    } catch (RuntimeException e) {
      try {
        node.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    log.info(
        "event=kubelet-node-started node={} kubelet={} runtime=\"{}\" address={} dir={} ms={}",
        name,
        kubeletBinary,
        release,
        node.address,
        dir,
        (System.nanoTime() - t0) / 1_000_000);
    return node;
  }

  /**
   * Sets the label {@code key} of this node's Node object to {@code value}, or removes it when
   * {@code value} is null, with a merge patch the API server applies to the version it holds: the
   * kubelet, the controller manager and the operator update the Node all the time, and a
   * read-modify-write meets their updates as conflicts (seen under load: "the object has been
   * modified").
   */
  public void label(String key, String value) {
    Map<String, String> labels = new HashMap<>();
    labels.put(key, value);
    String patch;
    try {
      patch = JSON.writeValueAsString(Map.of("metadata", Map.of("labels", labels)));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("label " + key + "=" + value, e);
    }
    controlPlane
        .client()
        .nodes()
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  /** The Node's name (also its hostname override). */
  public String name() {
    return name;
  }

  /** Whether {@link #close} was called. */
  public boolean isClosed() {
    return closed;
  }

  /** The node's InternalIP, on the bridge. */
  public String address() {
    return address;
  }

  /** The node's network namespace, as {@code ip netns} names it. */
  public String networkNamespace() {
    return netns.name();
  }

  /** The host side of the node's veth, on the bridge. */
  public String hostInterface() {
    return hostInterface;
  }

  /** The node's containerd; fails on a node of another runtime. */
  public ContainerdFixture containerd() {
    if (runtime instanceof ContainerdFixture containerd) {
      return containerd;
    }
    throw new IllegalStateException("node " + name + " runs " + release + ", not containerd");
  }

  /** The node's container runtime. */
  public NodeRuntime runtime() {
    return runtime;
  }

  /** The runtime release the node runs. */
  public RuntimeRelease release() {
    return release;
  }

  /**
   * Makes the image in {@code tarball} available to this node's pods under its name: imported into
   * containerd ({@code ctr -n k8s.io}), pushed to the registry CRI-O pulls it from.
   */
  public void importImage(Path tarball) {
    runtime.importImage(tarball);
  }

  /** Lets this node's runtime pull from the plain-HTTP registry at {@code hostPort}. */
  public void trustPlainHttpRegistry(String hostPort) {
    runtime.trustPlainHttpRegistry(hostPort);
  }

  /** The host path of {@code pathInNode} as this node sees it (through its mount namespace). */
  public Path hostPath(String pathInNode) {
    return Path.of("/proc/" + holder.pid() + "/root").resolve(pathInNode.replaceFirst("^/+", ""));
  }

  /** The node's {@code /etc/cni/net.d}, writable from the host. */
  public Path cniConfDir() {
    return hostPath("/etc/cni/net.d");
  }

  /** The node's {@code /var/lib/cni}, writable from the host. */
  public Path cniStateDir() {
    return hostPath("/var/lib/cni");
  }

  /** The node's directory on the host (kubelet and containerd logs, root dirs). */
  public Path dir() {
    return dir;
  }

  /** The kubelet's kubeconfig (its node certificate; the API server through the bridge). */
  public Path kubeconfig() {
    return dir.resolve("kubelet.kubeconfig");
  }

  public Path kubeletLog() {
    return dir.resolve("kubelet.log");
  }

  /**
   * Runs {@code action} with the kubelet frozen (SIGSTOP, then SIGCONT): what happens to the node's
   * runtime meanwhile, the kubelet does not watch happen, it only finds the result, as after a
   * runtime crash it had no part in.
   */
  public void withKubeletFrozen(Runnable action) {
    String pid = Long.toString(kubelet.pid());
    Commands.run("kill", "-STOP", pid).orThrow("kill -STOP kubelet");
    try {
      action.run();
    } finally {
      Commands.run("kill", "-CONT", pid).orThrow("kill -CONT kubelet");
    }
  }

  /** Runs {@code command} in the node's network and mount namespaces. */
  public dev.cnioperator.testkit.CommandResult exec(String... command) {
    List<String> full = new ArrayList<>(launcher());
    full.addAll(List.of(command));
    return Commands.run(full);
  }

  private List<String> launcher() {
    return List.of("nsenter", "-t", Long.toString(holder.pid()), "-m", "-n", "--");
  }

  private void startNetwork(NodeBridge bridge) {
    netns = NetworkNamespace.create("nn");
    String hostSide = TestNames.unique("nv");
    hostInterface = hostSide;
    Commands.run("ip", "link", "add", hostSide, "type", "veth", "peer", "name", hostSide + "p")
        .orThrow("ip link add " + hostSide);
    Commands.run("ip", "link", "set", hostSide + "p", "netns", netns.name())
        .orThrow("ip link set netns");
    Commands.run("ip", "link", "set", hostSide, "master", bridge.name(), "up")
        .orThrow("ip link set " + hostSide + " master " + bridge.name());
    netns.exec("ip", "link", "set", hostSide + "p", "name", "eth0");
    netns.exec("ip", "addr", "add", address + "/24", "dev", "eth0");
    netns.exec("ip", "link", "set", "eth0", "up");
  }

  private void startMountNamespace() {
    boolean crio = release instanceof CrioRelease;
    List<String> dirs =
        new ArrayList<>(
            List.of("etc-up", "etc-work", "opt-up", "opt-work", "cni", "netns", "kubelet"));
    if (crio) {
      dirs.addAll(List.of("var-up", "var-work", "storage"));
    }
    for (String d : dirs) {
      try {
        Files.createDirectories(dir.resolve(d));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    // containerd: its socket directory bound over /run/containerd, where every node shows it (its
    // default, the chart's containerd profile), while each containerd listens in its own
    // directory; bound before containerd starts (a symlink would point a container at a path it
    // does
    // not have; a bind of the socket file itself would keep the socket of a containerd that has
    // since restarted), so the shims' sockets, which every release puts under /run/containerd/s,
    // are the node's too. The only trace on the machine is the mount point, an empty
    // /run/containerd (made when missing, removed with the last node or test containerd when no
    // mount namespace has a mount on it any more: HostDirs). CRI-O: a /var and a /run of the node's
    // own, before anything is mounted in them, and its image storage where it is not an overlay.
    String runtimeBefore =
        crio
            ? """
            mount -t overlay overlay -o lowerdir=/var,upperdir=%1$s/var-up,workdir=%1$s/var-work /var
            mount -t tmpfs -o mode=0755 tmpfs /run
            """
                .formatted(dir)
            : "";
    String runtimeAfter =
        crio
            ? """
            mkdir -p %2$s
            mount --bind %1$s/storage %2$s
            """
                .formatted(dir, CrioFixture.STORAGE)
            : """
            mkdir -p %2$s /run/containerd
            mount --bind %2$s /run/containerd
            """
                .formatted(dir, ContainerdFixture.socketPath(dir).getParent());
    String script =
        """
        set -e
        mount -t overlay overlay -o lowerdir=/etc,upperdir=%1$s/etc-up,workdir=%1$s/etc-work /etc
        mount -t overlay overlay -o lowerdir=/opt,upperdir=%1$s/opt-up,workdir=%1$s/opt-work /opt
        %2$smkdir -p /etc/cni/net.d /opt/cni/bin /var/lib/cni /run/netns
        mount --bind %1$s/cni /var/lib/cni
        mount --bind %1$s/netns /run/netns
        mount -t tmpfs tmpfs /var/log
        mount --bind %1$s/kubelet %1$s/kubelet
        mkdir -p %4$s
        mount --bind %1$s/kubelet %4$s
        mkdir -p %1$s/device-plugins /var/lib/kubelet/device-plugins
        mount --bind %1$s/device-plugins /var/lib/kubelet/device-plugins
        %3$smount --make-rshared /
        echo ready
        exec sleep 2147483647
        """
            .formatted(dir, runtimeBefore, runtimeAfter, KUBELET_DIR_IN_NODE);
    ProcessBuilder pb =
        new ProcessBuilder(
                "nsenter",
                "--net=" + netns.path(),
                "unshare",
                "--mount",
                "--propagation",
                "slave",
                "sh",
                "-c",
                script)
            .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("node-ns.log").toFile()));
    try {
      holder = pb.start();
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      if (!"ready".equals(line)) {
        throw new IllegalStateException(
            "the mount namespace of node "
                + name
                + " did not come up: "
                + Files.readString(dir.resolve("node-ns.log")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the mount namespace of node " + name, e);
    }
  }

  private NodeRuntime startRuntime(LocalRegistry registry) {
    if (release instanceof CrioRelease crio) {
      if (registry == null) {
        throw new IllegalArgumentException("a CRI-O node pulls from a registry: none was given");
      }
      return CrioFixture.start(
          crio,
          dir.resolve("crio"),
          holder.pid(),
          launcher(),
          registry.hostPort(),
          dir.resolve("storage"));
    }
    return ContainerdFixture.start(
        dir,
        Path.of("/etc/cni/net.d"),
        Path.of("/opt/cni/bin"),
        launcher(),
        ContainerdFixture.NetnsPlacement.VAR_RUN_NETNS,
        (ContainerdRelease) release);
  }

  private void installPlugins() {
    Path from = ToolPaths.pluginDir();
    Path to = hostPath("/opt/cni/bin");
    try {
      for (String p : PLUGINS) {
        Files.copy(from.resolve(p), to.resolve(p), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot install the CNI plugins into node " + name, e);
    }
  }

  private void startKubelet(NodeBridge bridge) {
    Path pki = dir.resolve("pki");
    try {
      Files.createDirectories(pki);
      controlPlane.pki().issueClientCert("/O=system:nodes/CN=system:node:" + name, pki, "node");
      Path key = pki.resolve("node.key");
      Path crt = pki.resolve("node.crt");
      Path kubeconfig = kubeconfig();
      Files.writeString(
          kubeconfig,
          LocalControlPlane.kubeconfigYaml(
              bridge.apiServerUrl(),
              controlPlane.pki().apiServerCert(),
              LocalControlPlane.clientCertUser(crt, key)));
      Path resolvConf = dir.resolve("resolv.conf");
      Files.writeString(resolvConf, "nameserver 127.0.0.1\noptions ndots:1\n");
      createCgroups();
      Path config = dir.resolve("kubelet.yaml");
      Files.writeString(
          config,
          """
          apiVersion: kubelet.config.k8s.io/v1beta1
          kind: KubeletConfiguration
          address: %s
          healthzBindAddress: 127.0.0.1
          readOnlyPort: 0
          authentication:
            anonymous: {enabled: true}
            webhook: {enabled: false}
          authorization: {mode: AlwaysAllow}
          containerRuntimeEndpoint: unix://%s
          cgroupDriver: cgroupfs
          cgroupsPerQOS: false
          cgroupRoot: /%s
          enforceNodeAllocatable: []
          failSwapOn: false
          failCgroupV1: false
          makeIPTablesUtilChains: false
          resolvConf: %s
          serializeImagePulls: false
          imageGCHighThresholdPercent: 100
          imageGCLowThresholdPercent: 99
          evictionHard: {memory.available: "1Mi", nodefs.available: "1%%", imagefs.available: "1%%"}
          nodeStatusUpdateFrequency: 5s
          syncFrequency: %ds
          """
              .formatted(
                  address, release.criSocket(), name, resolvConf, syncFrequency.toSeconds()));
      kubeletArgs =
          List.of(
              "--config=" + config,
              "--kubeconfig=" + kubeconfig,
              "--root-dir=" + dir.resolve("kubelet"),
              "--cert-dir=" + pki,
              "--hostname-override=" + name,
              "--node-ip=" + address,
              "--v=1");
      kubelet = launchKubelet();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the kubelet of node " + name, e);
    }
  }

  private Process launchKubelet() throws IOException {
    List<String> cmd = new ArrayList<>(launcher());
    cmd.add(kubeletBinary.toString());
    cmd.addAll(kubeletArgs);
    return new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(kubeletLog().toFile()))
        .start();
  }

  /**
   * Replaces the node's kubelet with {@code binary}, as a node's upgrade does: the kubelet stops
   * (its pods go on running in containerd), the new one starts on the same configuration, state and
   * certificates, and this returns once the Node reports the new kubelet's version and Ready.
   * Returns that version ({@code v1.37.2}).
   */
  public String upgradeKubelet(Path binary) {
    Prerequisites.requireExecutable(binary, "kubelet");
    String reported =
        Commands.run(binary.toString(), "--version").orThrow("kubelet --version").stdout();
    String version = reported.strip().substring(reported.strip().lastIndexOf(' ') + 1);
    long t0 = System.nanoTime();
    stop(kubelet);
    kubeletBinary = binary;
    try {
      kubelet = launchKubelet();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start kubelet " + binary + " on node " + name, e);
    }
    Await.serving(
        "kubelet " + version + " of node " + name,
        kubelet,
        kubeletLog(),
        () -> {
          Node node = controlPlane.client().nodes().withName(name).get();
          return node != null
              && version.equals(node.getStatus().getNodeInfo().getKubeletVersion())
              && node.getStatus().getConditions().stream()
                  .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        },
        REGISTER_TIMEOUT);
    log.info(
        "event=kubelet-upgraded node={} version={} ms={}",
        name,
        version,
        (System.nanoTime() - t0) / 1_000_000);
    return version;
  }

  /**
   * Powers the node off as a crash or a reboot does, short of the kernel and its network state: the
   * kubelet, containerd, its shims and every container die at once (SIGKILL) and nothing is torn
   * down. The Node stays in the API as the kubelet left it until the control plane notices (the
   * node lifecycle controller, after its grace period). {@link #powerOn} boots it again.
   */
  public void powerOff() {
    long t0 = System.nanoTime();
    kubelet.destroyForcibly();
    try {
      kubelet.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    runtime.powerCut();
    log.info(
        "event=kubelet-node-powered-off node={} ms={}", name, (System.nanoTime() - t0) / 1_000_000);
  }

  /**
   * Boots the node after {@link #powerOff}: containerd starts on its state and finds every sandbox
   * dead, the kubelet starts and makes its pods new sandboxes, running their init containers again
   * as after a reboot. Returns once the Node's Ready condition is true in a heartbeat of this boot.
   */
  public void powerOn() {
    long t0 = System.nanoTime();
    Instant booted = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    runtime.restart();
    try {
      kubelet = launchKubelet();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the kubelet of node " + name, e);
    }
    Await.serving(
        "the kubelet of node " + name + " after power-on",
        kubelet,
        kubeletLog(),
        () -> {
          Node node = controlPlane.client().nodes().withName(name).get();
          return node != null
              && node.getStatus().getConditions().stream()
                  .anyMatch(
                      c ->
                          "Ready".equals(c.getType())
                              && "True".equals(c.getStatus())
                              && c.getLastHeartbeatTime() != null
                              && !Instant.parse(c.getLastHeartbeatTime()).isBefore(booted));
        },
        REGISTER_TIMEOUT);
    log.info(
        "event=kubelet-node-powered-on node={} ms={}", name, (System.nanoTime() - t0) / 1_000_000);
  }

  /** The cgroup of this node's cgroup root in each hierarchy. */
  private List<Path> cgroupDirs() {
    return CgroupHierarchies.each(name);
  }

  private void createCgroups() throws IOException {
    for (Path d : cgroupDirs()) {
      Files.createDirectories(d);
    }
  }

  private void awaitRegistered() {
    Await.serving(
        "the kubelet of node " + name,
        kubelet,
        kubeletLog(),
        () -> controlPlane.client().nodes().withName(name).get() != null,
        REGISTER_TIMEOUT);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    stop(kubelet);
    if (runtime != null) {
      try {
        runtime.close();
      } catch (RuntimeException e) {
        cleanupProblems.add(e.getMessage());
      }
    }
    stop(holder);
    if (hostRun != null) {
      hostRun.close();
    }
    if (hostKubelet != null) {
      hostKubelet.close();
    }
    if (netns != null) {
      netns.close();
    }
    // The kernel tears a deleted namespace's veth end down asynchronously, and the host end with it
    // only then: deleting the host end now leaves nothing for the next test to trip over.
    if (hostInterface != null
        && Commands.run("ip", "link", "show", hostInterface).ok()
        && !Commands.run("ip", "link", "del", hostInterface).ok()
        && Commands.run("ip", "link", "show", hostInterface).ok()) {
      cleanupProblems.add("cannot delete the node's veth " + hostInterface);
    }
    if (holder != null) {
      for (Path d : cgroupDirs()) {
        // What still runs there (a container whose monitor was killed) goes with the tree.
        cleanupProblems.addAll(CgroupHierarchies.removeTree(d));
      }
    }
    try {
      controlPlane.client().nodes().withName(name).delete();
    } catch (RuntimeException e) {
      cleanupProblems.add("cannot delete Node " + name + ": " + e.getMessage());
    }
    var rm = Commands.run("rm", "-rf", "--one-file-system", dir.toString());
    if (!rm.ok()) {
      cleanupProblems.add("rm -rf " + dir + ": " + rm.stderr().strip());
    }
    log.info("event=kubelet-node-closed node={} problems={}", name, cleanupProblems.size());
    if (!cleanupProblems.isEmpty()) {
      throw new IllegalStateException(
          "node " + name + " left things behind: " + String.join("; ", cleanupProblems));
    }
  }

  private static void stop(Process p) {
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
