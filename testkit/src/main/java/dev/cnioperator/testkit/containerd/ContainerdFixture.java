package dev.cnioperator.testkit.containerd;

import static org.awaitility.Awaitility.await;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.cri.NodeRuntime;
import dev.cnioperator.testkit.cri.RuntimeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A containerd of the test's own (a {@link ContainerdRelease}, Debian's containerd 1.6 unless the
 * test picks another; Debian's runc; never the system service): its root, state and socket under a
 * directory of the test, its CRI plugin reading CNI configuration and plugins from the test's
 * sandbox node directories, and a pause image built here as its sandbox image. Pod sandboxes are
 * driven with {@link #crictl} (or a CRI client on {@link #socket}); containerd runs the CNI plugins
 * itself and writes libcni's result cache under {@link #CNI_CACHE_DIR}.
 *
 * <p>{@link #close} removes every sandbox through containerd (so the plugins get their DEL), stops
 * containerd, kills what it left running, unmounts what it left mounted and deletes its directory.
 */
public final class ContainerdFixture implements NodeRuntime {
  private static final Duration CRI_READY_TIMEOUT = Duration.ofSeconds(60);

  private static final Logger log = LoggerFactory.getLogger(ContainerdFixture.class);

  /**
   * Where containerd has libcni keep its result cache ({@code results/<network>-<id>-<ifname>}):
   * libcni's default, which its CRI plugin offers no setting to move. Shared with the host, so a
   * test uses a network name of its own.
   */
  public static final Path CNI_CACHE_DIR = Path.of("/var/lib/cni");

  /** The cache entries of {@code network} in {@link #CNI_CACHE_DIR}, the machine's. */
  public static List<Path> cniCacheEntries(String network) {
    Path results = CNI_CACHE_DIR.resolve("results");
    if (!Files.isDirectory(results)) {
      return List.of();
    }
    try (var entries = Files.list(results)) {
      return entries.filter(p -> p.getFileName().toString().startsWith(network + "-")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + results, e);
    }
  }

  /** Sandboxes {@link #loseSandbox} made containerd forget. */
  private final List<String> lostSandboxIds = new ArrayList<>();

  /** The sandbox image every fixture imports at start (no registry needed). */
  public static final String PAUSE_IMAGE = PauseImage.NAME;

  /** The containerd namespace of everything CRI makes. */
  public static final String K8S_NAMESPACE = "k8s.io";

  /** Where containerd mounts the sandboxes' network namespaces. */
  public enum NetnsPlacement {
    /**
     * Under the fixture's state dir ({@code io.containerd.grpc.v1.cri/netns}), so a fixture on the
     * machine itself leaves the machine's {@code /var/run/netns} alone.
     */
    UNDER_STATE_DIR,
    /**
     * containerd's default, {@code /var/run/netns}, as on a real node: for a fixture in a node's
     * own mount namespace, where that directory is the node's and its agent reads it.
     */
    VAR_RUN_NETNS
  }

  /** Longest unix socket path the kernel accepts ({@code sun_path} is 108 bytes with its NUL). */
  private static final int MAX_SOCKET_PATH = 107;

  private final Path dir;
  private final ContainerdConfig config;
  private final Path binDir;
  private final Path crictlConfig;
  private final RuntimeProcess process;
  private final HostDirs.Hold hostRun;
  private boolean closed;

  private ContainerdFixture(Path dir, ContainerdConfig config, Path binDir, List<String> launcher) {
    this.dir = dir;
    this.config = config;
    this.binDir = binDir;
    this.crictlConfig = dir.resolve("crictl.yaml");
    Path ctr = binDir.resolve("ctr");
    List<String> command = new ArrayList<>(launcher);
    command.addAll(
        List.of(
            binDir.resolve("containerd").toString(),
            "--config",
            dir.resolve("config.toml").toString()));
    // containerd looks its shim up on PATH first: the release's own, not Debian's in /usr/bin.
    this.process =
        new RuntimeProcess(
            config.release().toString(),
            command,
            Map.of("PATH", binDir + ":" + System.getenv("PATH")),
            logFile(),
            () ->
                Files.exists(config.socket())
                    && Commands.run(ctr.toString(), "-a", config.socket().toString(), "version")
                        .ok());
    // Its shims make /run/containerd/s on the machine unless it runs in a node's mount namespace.
    this.hostRun = HostDirs.RUN_CONTAINERD.hold();
  }

  /**
   * Starts a containerd under {@code testDir/containerd} whose CRI plugin loads CNI configuration
   * from {@code cniConfDir} and plugins from {@code cniBinDir}. Fails (CI) or skips (elsewhere)
   * without root, containerd, runc, gcc or crictl.
   */
  public static ContainerdFixture start(Path testDir, Path cniConfDir, Path cniBinDir) {
    return start(testDir, cniConfDir, cniBinDir, List.of(), NetnsPlacement.UNDER_STATE_DIR);
  }

  /** As {@link #start(Path, Path, Path, List, NetnsPlacement, ContainerdRelease)} with 1.6. */
  public static ContainerdFixture start(
      Path testDir, Path cniConfDir, Path cniBinDir, List<String> launcher, NetnsPlacement netns) {
    return start(testDir, cniConfDir, cniBinDir, launcher, netns, ContainerdRelease.DEBIAN_1_6);
  }

  /**
   * The socket a fixture started on {@code testDir} will listen on, alone in its directory (with
   * the ttrpc socket), as a node's {@code /run/containerd}: a DaemonSet mounts that directory,
   * since containerd makes its socket anew whenever it starts.
   */
  public static Path socketPath(Path testDir) {
    return testDir.toAbsolutePath().resolve("containerd").resolve("run").resolve("containerd.sock");
  }

  /**
   * As {@link #start(Path, Path, Path)}, with containerd {@code release}, started through {@code
   * launcher} (e.g. {@code nsenter} into a node's namespaces, where {@code cniConfDir} and {@code
   * cniBinDir} are paths as that node sees them), its sandboxes' network namespaces mounted as
   * {@code netns} says.
   */
  public static ContainerdFixture start(
      Path testDir,
      Path cniConfDir,
      Path cniBinDir,
      List<String> launcher,
      NetnsPlacement netns,
      ContainerdRelease release) {
    Prerequisites.requireRoot();
    Path binDir = release.binDir();
    Prerequisites.requireCommand("runc");
    ToolPaths.crictl();
    long startNanos = System.nanoTime();
    Path dir = testDir.toAbsolutePath().resolve("containerd");
    Path socket = socketPath(testDir);
    if (socket.toString().length() + ".ttrpc".length() > MAX_SOCKET_PATH) {
      throw new IllegalArgumentException(
          "containerd socket path " + socket + " is too long for a unix socket; use a shorter dir");
    }
    try {
      Files.createDirectories(dir.resolve("image"));
      Files.createDirectories(dir.resolve("pods"));
      Files.createDirectories(socket.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir, e);
    }
    ContainerdConfig config =
        new ContainerdConfig(
            release,
            dir.resolve("root"),
            dir.resolve("state"),
            socket,
            cniConfDir.toAbsolutePath(),
            cniBinDir.toAbsolutePath(),
            PauseImage.NAME,
            SnapshotterProbe.pick(dir),
            netns);
    ContainerdFixture fixture = new ContainerdFixture(dir, config, binDir, launcher);
    try {
      fixture.writeConfigFiles();
      Path image = PauseImage.build(dir.resolve("image"));
      fixture.startProcess();
      fixture.importImage(image);
    } catch (RuntimeException e) {
      fixture.close();
      throw e;
    }
    log.info(
        "event=containerd-fixture-started release={} socket={} snapshotter={} ms={}",
        release.name(),
        socket,
        config.snapshotter(),
        (System.nanoTime() - startNanos) / 1_000_000);
    return fixture;
  }

  /**
   * The CRI (and containerd API) socket, alone in its directory with the ttrpc socket; containerd
   * replaces the file each time it starts.
   */
  @Override
  public Path socket() {
    return config.socket();
  }

  /** {@link #PAUSE_IMAGE}, imported at start. */
  @Override
  public String pauseImage() {
    return PAUSE_IMAGE;
  }

  /** The fixture's directory: config, root, state, socket, log. */
  public Path dir() {
    return dir;
  }

  /**
   * containerd's state dir; with {@link NetnsPlacement#UNDER_STATE_DIR} the sandbox network
   * namespaces are under {@code io.containerd.grpc.v1.cri/netns}.
   */
  public Path stateDir() {
    return config.state();
  }

  /** containerd's root dir (images, snapshots, the CRI plugin's sandbox records). */
  public Path rootDir() {
    return config.root();
  }

  /** The release running, whose {@code ctr} {@link #ctr} runs. */
  @Override
  public ContainerdRelease release() {
    return config.release();
  }

  /** {@code overlayfs} or, where this kernel refuses overlay mounts, {@code native}. */
  public String snapshotter() {
    return config.snapshotter();
  }

  /** containerd's stdout and stderr, across restarts. */
  @Override
  public Path logFile() {
    return dir.resolve("containerd.log");
  }

  public boolean isRunning() {
    return process.isRunning();
  }

  /** Runs crictl against this containerd ({@code --runtime-endpoint unix://<socket>}). */
  @Override
  public CommandResult crictl(String... args) {
    List<String> command = new ArrayList<>();
    command.add(ToolPaths.crictl().toString());
    command.addAll(List.of("--config", crictlConfig.toString()));
    command.addAll(List.of("--runtime-endpoint", "unix://" + socket()));
    command.addAll(List.of("--image-endpoint", "unix://" + socket()));
    command.addAll(List.of(args));
    return Commands.run(command, Map.of(), null, Duration.ofMinutes(2));
  }

  /**
   * Imports an image tarball (OCI layout or docker archive) for CRI ({@code ctr images import}).
   */
  @Override
  public void importImage(Path tarball) {
    ctr("images", "import", "--snapshotter", config.snapshotter(), tarball.toString())
        .orThrow("ctr images import " + tarball);
  }

  /**
   * Makes this containerd pull from {@code hostPort} over plain HTTP: its {@code hosts.toml} in the
   * registry hosts directory, which containerd reads at each pull (a node's {@code
   * /etc/containerd/certs.d}, as a cluster admin would write it for a registry without TLS).
   */
  @Override
  public void trustPlainHttpRegistry(String hostPort) {
    Path hosts = config.registryHosts().resolve(hostPort).resolve("hosts.toml");
    try {
      Files.createDirectories(hosts.getParent());
      Files.writeString(
          hosts,
          """
          server = "http://%1$s"

          [host."http://%1$s"]
            capabilities = ["pull", "resolve"]
          """
              .formatted(hostPort));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + hosts, e);
    }
  }

  /** Runs {@code ctr -a <socket> -n k8s.io <args>}. */
  public CommandResult ctr(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                binDir.resolve("ctr").toString(), "-a", socket().toString(), "-n", K8S_NAMESPACE));
    command.addAll(List.of(args));
    return Commands.run(command, Map.of(), null, Duration.ofMinutes(2));
  }

  /**
   * {@code ctr run <args>} ({@link #ctr}) with the task's I/O fifos and runc's state under the
   * fixture's directory, where ctr and the shim would otherwise make {@code /run/containerd/fifo}
   * and {@code /run/containerd/runc/k8s.io} on the machine. The shim's socket still goes to {@code
   * /run/containerd/s}, where every release puts it ({@link HostDirs}).
   */
  public CommandResult ctrRun(String... args) {
    List<String> run =
        new ArrayList<>(
            List.of(
                "run",
                "--fifo-dir",
                dir.resolve("fifo").toString(),
                "--runc-root",
                config.runcRoot().toString()));
    run.addAll(List.of(args));
    return ctr(run.toArray(String[]::new));
  }

  /**
   * Writes the crictl pod sandbox config of a pod {@code namespace/name} with {@code uid}, with its
   * own network namespace; returns the file for {@code crictl runp}.
   */
  public Path writePodSandboxConfig(String name, String namespace, String uid) {
    Path file = dir.resolve("pods").resolve(namespace + "_" + name + "_" + uid + ".json");
    Path logs = dir.resolve("logs").resolve(namespace + "_" + name + "_" + uid);
    try {
      Files.writeString(file, CrictlPodConfig.json(name, namespace, uid, logs));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return file;
  }

  /**
   * {@code crictl runp} of a pod {@code namespace/name}: containerd runs the CNI ADD. Returns the
   * sandbox id.
   */
  public String runPodSandbox(String name, String namespace, String uid) {
    Path config = writePodSandboxConfig(name, namespace, uid);
    return crictl("runp", config.toString()).orThrow("crictl runp " + config).stdout().strip();
  }

  /**
   * SIGKILLs containerd, as a crash would: its shims and sandboxes keep running, nothing is torn
   * down, its state stays on disk.
   */
  public void kill9() {
    process.kill();
  }

  /**
   * Cuts the power, as a node's crash or reboot does: containerd, its shims and every process they
   * run die at once (SIGKILL), nothing is torn down, the state stays on disk. {@link #restart}
   * boots it again: it finds the sandboxes dead.
   */
  @Override
  public void powerCut() {
    process.kill();
    ShimProcesses.killAll(ShimProcesses.of(socket()));
    log.info("event=containerd-power-cut socket={}", socket());
  }

  /**
   * Makes containerd lose sandbox {@code id} without tearing its network down, as a node whose
   * runtime lost its state does: the sandbox's task is killed and its container deleted behind the
   * CRI plugin's back (so no CNI DEL runs), then containerd is SIGKILLed and started again, and CRI
   * no longer lists the sandbox. What the plugins made stays: libcni's cache entry, the IPAM
   * reservation and the host side of the network. This is how stale attachments happen.
   */
  public void loseSandbox(String id) {
    ctr("tasks", "kill", "--signal", "SIGKILL", id);
    // The CRI plugin deletes the task itself when it sees the exit; delete it if it has not yet.
    await("the task of sandbox " + id + " gone")
        .atMost(RuntimeProcess.STOP_TIMEOUT)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(100))
        .pollInSameThread()
        .until(
            () -> {
              boolean listed =
                  ctr("tasks", "ls", "--quiet")
                      .orThrow("ctr tasks ls")
                      .stdout()
                      .lines()
                      .anyMatch(id::equals);
              if (listed) {
                ctr("tasks", "delete", id);
              }
              return !listed;
            });
    ctr("containers", "delete", id).orThrow("ctr containers delete " + id);
    lostSandboxIds.add(id);
    process.kill();
    startProcess();
    log.info("event=containerd-sandbox-lost id={} socket={}", id, socket());
  }

  /** Stops containerd if it runs (SIGTERM) and starts it again on the same root and state. */
  @Override
  public void restart() {
    process.stop();
    startProcess();
  }

  /**
   * Starts containerd and waits until its CRI plugin answers too: containerd serves its own API
   * first and answers CRI calls with "server is not initialized yet" for a while after.
   */
  private void startProcess() {
    process.start();
    await("containerd's CRI plugin answering crictl version")
        .atMost(CRI_READY_TIMEOUT)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(100))
        .pollInSameThread()
        .until(() -> crictl("version"), CommandResult::ok);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<String> problems = new ArrayList<>();
    List<String> ids = new ArrayList<>(knownSandboxIds());
    int killedContainers = removeSandboxesThroughContainerd(problems);
    process.stop();
    List<ShimProcesses.Shim> leftover = ShimProcesses.of(socket());
    leftover.forEach(s -> ids.add(s.id()));
    ShimProcesses.killAll(leftover);
    problems.addAll(HostMounts.unmountUnder(dir));
    // A sandbox containerd lost, or forgot with its state, got no DEL: what it left is this
    // fixture's doing, so it goes with the fixture.
    ids.addAll(lostSandboxIds);
    for (String id : ids) {
      SandboxLeftovers.remove(socket(), id, problems);
    }
    try {
      HostMounts.deleteTree(dir);
    } catch (RuntimeException e) {
      problems.add(e.getMessage());
    }
    hostRun.close();
    log.info(
        "event=containerd-fixture-closed socket={} killedContainers={} leftoverShims={} problems={}",
        socket(),
        killedContainers,
        leftover.size(),
        problems.size());
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          "the test containerd at " + dir + " left things behind: " + String.join("; ", problems));
    }
  }

  private void writeConfigFiles() {
    try {
      Files.writeString(dir.resolve("config.toml"), config.toml());
      Files.writeString(
          crictlConfig,
          "runtime-endpoint: unix://%s\nimage-endpoint: unix://%s\ntimeout: 60\n"
              .formatted(socket(), socket()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the containerd config under " + dir, e);
    }
  }

  /**
   * {@code crictl rmp --force --all}: containerd stops every sandbox it knows (running the CNI DEL)
   * and removes it. After a {@link #kill9} containerd is started again first, as a node would. The
   * containers are killed before, and rmp runs once containerd has seen each of them exit ({@link
   * #killContainers}). Returns how many containers were killed.
   */
  private int removeSandboxesThroughContainerd(List<String> problems) {
    int killed = 0;
    try {
      if (!isRunning() && Files.exists(dir.resolve("config.toml"))) {
        startProcess();
      }
      if (isRunning()) {
        killed = killContainers(problems);
        CommandResult r = crictl("rmp", "--force", "--all");
        if (!r.ok()) {
          problems.add("crictl rmp --force --all: " + r.stderr().strip());
        }
      }
    } catch (RuntimeException e) {
      problems.add("could not remove the sandboxes through containerd: " + e.getMessage());
    }
    return killed;
  }

  /**
   * SIGKILLs every running container and waits until containerd's CRI plugin has handled each exit.
   * A container that exits by itself while {@code crictl rmp} stops it (one a kubelet told to
   * terminate just before the node was closed: a pod of an uninstalled chart) fails the stop in
   * containerd 1.6: its exit handler deletes the task, closing the shim connection the stop holds,
   * between the stop's state check and its SIGKILL, which then fails with "ttrpc: closed" and
   * leaves the pod and its shim (containerd/containerd#12389). Once no container runs, rmp only
   * stops sandboxes, whose pause process exits on nothing but a signal.
   */
  private int killContainers(List<String> problems) {
    List<String> running = runningContainers();
    for (String id : running) {
      // Fails when the container exits by itself meanwhile; the wait below is the check.
      ctr("tasks", "kill", "--signal", "SIGKILL", id);
    }
    try {
      await("containerd to see every container exit")
          .atMost(RuntimeProcess.STOP_TIMEOUT)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(100))
          .pollInSameThread()
          .until(this::runningContainers, List::isEmpty);
    } catch (ConditionTimeoutException e) {
      problems.add("containers still running after SIGKILL: " + runningContainers());
    }
    return running.size();
  }

  private List<String> runningContainers() {
    return crictl("ps", "--quiet")
        .orThrow("crictl ps")
        .stdout()
        .lines()
        .filter(line -> !line.isBlank())
        .toList();
  }

  /** Sandbox ids containerd has state for, so their leftovers can be found after it is gone. */
  private List<String> knownSandboxIds() {
    Path tasks = config.state().resolve("io.containerd.runtime.v2.task").resolve(K8S_NAMESPACE);
    if (!Files.isDirectory(tasks)) {
      return List.of();
    }
    try (var entries = Files.list(tasks)) {
      return entries.map(p -> p.getFileName().toString()).toList();
    } catch (IOException e) {
      return List.of();
    }
  }
}
