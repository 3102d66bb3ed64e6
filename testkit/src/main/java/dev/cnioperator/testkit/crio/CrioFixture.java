package dev.cnioperator.testkit.crio;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.CgroupHierarchies;
import dev.cnioperator.testkit.containerd.HostDirs;
import dev.cnioperator.testkit.containerd.OciImage;
import dev.cnioperator.testkit.containerd.PauseImage;
import dev.cnioperator.testkit.containerd.SnapshotterProbe;
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
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CRI-O of a test node, laid out as on a real node: started in the node's network and mount
 * namespaces with its configuration as a drop-in of the node's {@code /etc/crio/crio.conf.d}, and
 * everything else CRI-O's defaults: its socket {@code /var/run/crio/crio.sock}, CNI configuration
 * from {@code /etc/cni/net.d} and plugins from {@code /opt/cni/bin}, libcni's cache in {@code
 * /var/lib/cni}, pods' namespaces pinned by {@code pinns} under {@code /var/run}, images and
 * containers in {@code /var/lib/containers/storage}. The node ({@link
 * dev.cnioperator.testkit.node.KubeletNode}) gives it a {@code /run} and a {@code /var} of its own,
 * so none of this is the machine's. It pulls every image, its pause image too, from the test's
 * registry over plain HTTP, as trusted in the node's {@code /etc/containers/registries.conf.d}.
 *
 * <p>Set for this machine only: the cgroupfs manager (cgroups v1, no systemd), and the OCI runtime
 * Debian's runc, through a wrapper where the machine differs from a node in ways CRI-O does not
 * check ({@link BundleFit}).
 *
 * <p>{@link #close} removes every sandbox through CRI-O (so the plugins get their DEL), stops it,
 * and kills any container monitor of the node's that is left, with what it runs.
 */
public final class CrioFixture implements NodeRuntime {
  private static final Logger log = LoggerFactory.getLogger(CrioFixture.class);

  /** Where CRI-O keeps images and containers ({@code crio.root}'s default). */
  public static final String STORAGE = "/var/lib/containers/storage";

  /** Where the images the tests make are named ({@link PauseImage#NAME}, Istio's). */
  private static final String TEST_IMAGES = "cni-operator.test";

  /** The pause image's repository and tag in the test's registry. */
  private static final String PAUSE = PauseImage.NAME;

  /** CRI-O's log lines of a sandbox or container made, with its id. */
  private static final Pattern MADE =
      Pattern.compile("(?:Ran pod sandbox|Created container) ([0-9a-f]{64})");

  private final CrioRelease release;
  private final Path dir;
  private final Path nodeRoot;
  private final long nodePid;
  private final Path crictlConfig;
  private final RuntimeProcess process;
  private String pauseImage;
  private String registry;
  private final HostDirs.Hold crioCgroups = HostDirs.CRIO_CGROUPS.hold();
  private boolean closed;

  private CrioFixture(CrioRelease release, Path dir, long nodePid, List<String> launcher) {
    this.release = release;
    this.dir = dir;
    this.nodePid = nodePid;
    this.nodeRoot = Path.of("/proc/" + nodePid + "/root");
    this.crictlConfig = dir.resolve("crictl.yaml");
    List<String> command = new ArrayList<>(launcher);
    command.add(release.crio().toString());
    this.process =
        new RuntimeProcess(
            release.toString(),
            command,
            Map.of(),
            logFile(),
            () -> Files.exists(socket()) && crictl("version").ok());
  }

  /**
   * Starts CRI-O {@code release} in the node whose namespaces {@code launcher} enters (its holder
   * process {@code nodePid}), keeping its own files under {@code dir}, pulling from the registry at
   * {@code registry} (the pause image is pushed there first). The node has bound its storage
   * directory on {@link #STORAGE}, and {@code storageDriverDir} is where that directory lies on the
   * machine (overlay where the kernel allows it there, vfs otherwise).
   */
  public static CrioFixture start(
      CrioRelease release,
      Path dir,
      long nodePid,
      List<String> launcher,
      String registry,
      Path storageDir) {
    Prerequisites.requireRoot();
    Objects.requireNonNull(registry, "a CRI-O node pulls from the test's registry");
    long t0 = System.nanoTime();
    CrioFixture fixture = new CrioFixture(release, dir, nodePid, launcher);
    try {
      Files.createDirectories(dir);
      String driver = SnapshotterProbe.overlayMountable(storageDir) ? "overlay" : "vfs";
      String pause = fixture.pushPauseImage(registry);
      fixture.pauseImage = pause;
      fixture.registry = registry;
      fixture.writeNodeFile(
          "/etc/containers/registries.conf.d/50-cni-operator-test.conf",
          """
          # The test's registry, plain HTTP (written by the test kit); the images the tests make,
          # named %2$s/..., are pushed there (importImage) and pulled from there.
          [[registry]]
          location = "%1$s"
          insecure = true

          [[registry]]
          prefix = "%2$s"
          location = "%1$s/%2$s"
          insecure = true
          """
              .formatted(registry, TEST_IMAGES));
      fixture.writeNodeFile(
          "/etc/crio/crio.conf.d/10-cni-operator-test.conf", fixture.config(driver, pause));
      Files.writeString(
          fixture.crictlConfig,
          "runtime-endpoint: unix://%1$s\nimage-endpoint: unix://%1$s\ntimeout: 60\n"
              .formatted(fixture.socket()));
      fixture.process.start();
      log.info(
          "event=crio-fixture-started release=\"{}\" socket={} storage={} ms={}",
          release,
          fixture.socket(),
          driver,
          (System.nanoTime() - t0) / 1_000_000);
      return fixture;
    } catch (IOException e) {
      fixture.close();
      throw new UncheckedIOException("cannot start CRI-O under " + dir, e);
    } catch (RuntimeException e) {
      try {
        fixture.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /**
   * The drop-in CRI-O reads after its defaults: only what this machine needs differently, and the
   * pause image in the test's registry.
   */
  private String config(String driver, String pauseImage) throws IOException {
    return """
        # Written by the test kit: only what this machine needs; all else is CRI-O's default.
        [crio]
        storage_driver = "%1$s"

        [crio.runtime]
        cgroup_manager = "cgroupfs"
        conmon_cgroup = "pod"
        default_runtime = "runc"
        pinns_path = "%2$s"

        [crio.runtime.runtimes.runc]
        runtime_path = "%3$s"
        runtime_root = "/run/runc"
        monitor_path = "%4$s"
        monitor_cgroup = "pod"

        [crio.image]
        pause_image = "%5$s"
        """
        .formatted(
            driver,
            release.pinns(),
            BundleFit.runtime(dir, release.runc()),
            release.conmon(),
            pauseImage);
  }

  /** Builds the pause image and pushes it to {@code registry}; returns its reference there. */
  private String pushPauseImage(String registry) {
    return push(PauseImage.build(dir), registry + "/" + PAUSE);
  }

  /**
   * Pushes the image to the test's registry under its name ({@code cni-operator.test/...}), where
   * the node's registries configuration sends a pull of that name.
   */
  @Override
  public void importImage(Path tarball) {
    String name = OciImage.name(tarball);
    if (!name.startsWith(TEST_IMAGES + "/")) {
      throw new IllegalArgumentException(
          "a CRI-O node pulls only images named " + TEST_IMAGES + "/...: " + name);
    }
    push(tarball, registry + "/" + name);
  }

  /** Pushes the OCI archive {@code tarball} to {@code reference}; returns the reference. */
  private static String push(Path tarball, String reference) {
    Commands.run(
            List.of(
                "skopeo",
                "copy",
                "--quiet",
                "--dest-tls-verify=false",
                "oci-archive:" + tarball,
                "docker://" + reference),
            Map.of(),
            null,
            Duration.ofMinutes(1))
        .orThrow("skopeo copy of " + tarball + " to " + reference);
    return reference;
  }

  private void writeNodeFile(String pathInNode, String content) throws IOException {
    Path file = nodeRoot.resolve(pathInNode.substring(1));
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
  }

  @Override
  public CrioRelease release() {
    return release;
  }

  /** The pause image in the test's registry, which CRI-O pulls when it needs it. */
  @Override
  public String pauseImage() {
    return pauseImage;
  }

  /** The socket through the node's root ({@code /run}, where the node's {@code /var/run} goes). */
  @Override
  public Path socket() {
    return nodeRoot.resolve("run/crio/crio.sock");
  }

  @Override
  public CommandResult crictl(String... args) {
    List<String> command = new ArrayList<>();
    command.add(ToolPaths.crictl().toString());
    command.addAll(List.of("--config", crictlConfig.toString()));
    command.addAll(List.of(args));
    return Commands.run(command, Map.of(), null, Duration.ofMinutes(2));
  }

  /**
   * Trusts {@code hostPort} in a drop-in of the node's registries configuration and has CRI-O
   * reload it (SIGHUP, which reloads the registries).
   */
  @Override
  public void trustPlainHttpRegistry(String hostPort) {
    try {
      writeNodeFile(
          "/etc/containers/registries.conf.d/51-" + hostPort.replace(':', '-') + ".conf",
          "[[registry]]\nlocation = \"%s\"\ninsecure = true\n".formatted(hostPort));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot trust " + hostPort + " on CRI-O", e);
    }
    if (process.isRunning()) {
      Commands.run("kill", "-HUP", Long.toString(process.pid())).orThrow("kill -HUP crio");
    }
  }

  @Override
  public void restart() {
    process.stop();
    process.start();
  }

  /** Kills CRI-O, then every container monitor of the node with what it runs. */
  @Override
  public void powerCut() {
    process.kill();
    killMonitors();
    log.info("event=crio-power-cut socket={}", socket());
  }

  @Override
  public Path logFile() {
    return dir.resolve("crio.log");
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<String> problems = new ArrayList<>();
    try {
      if (!process.isRunning() && Files.exists(dir.resolve("crictl.yaml"))) {
        process.start();
      }
      if (process.isRunning()) {
        CommandResult r = crictl("rmp", "--force", "--all");
        if (!r.ok()) {
          problems.add("crictl rmp --force --all: " + r.stderr().strip());
        }
      }
    } catch (RuntimeException e) {
      problems.add("could not remove the sandboxes through CRI-O: " + e.getMessage());
    }
    process.stop();
    int left = killMonitors();
    problems.addAll(removeCgroups());
    crioCgroups.close();
    log.info(
        "event=crio-fixture-closed socket={} leftoverMonitors={} problems={}",
        socket(),
        left,
        problems.size());
    if (!problems.isEmpty()) {
      throw new IllegalStateException(
          "the test CRI-O at " + dir + " left things behind: " + String.join("; ", problems));
    }
  }

  /**
   * Removes the cgroups CRI-O made for this node's sandboxes and containers, which nothing else
   * removes without the kubelet's pod cgroups: each container's monitor cgroup ({@code
   * crio-conmon-<id>}) and its own ({@code crio/crio-<id>}), each sandbox's ({@code crio-<id>}), in
   * every hierarchy. The ids are those CRI-O logged as made.
   */
  private List<String> removeCgroups() {
    Set<String> ids = new TreeSet<>();
    try {
      Matcher m = MADE.matcher(Files.exists(logFile()) ? Files.readString(logFile()) : "");
      while (m.find()) {
        ids.add(m.group(1));
      }
    } catch (IOException e) {
      return List.of("cannot read " + logFile() + " for the ids of CRI-O's cgroups: " + e);
    }
    List<String> problems = new ArrayList<>();
    for (String id : ids) {
      for (String name : List.of("crio-conmon-" + id, "crio-" + id, "crio/crio-" + id)) {
        for (Path cgroup : CgroupHierarchies.each(name)) {
          problems.addAll(CgroupHierarchies.removeTree(cgroup));
        }
      }
    }
    return problems;
  }

  /**
   * Kills every conmon in the node's mount namespace, after what it runs (its descendants); returns
   * how many there were.
   */
  private int killMonitors() {
    String nodeMounts = mountNamespace(nodePid);
    if (nodeMounts == null) {
      return 0;
    }
    List<ProcessHandle> monitors =
        ProcessHandle.allProcesses()
            .filter(p -> p.info().command().map(c -> c.endsWith("/conmon")).orElse(false))
            .filter(p -> nodeMounts.equals(mountNamespace(p.pid())))
            .toList();
    for (ProcessHandle monitor : monitors) {
      monitor.descendants().forEach(ProcessHandle::destroyForcibly);
      monitor.destroyForcibly();
    }
    return monitors.size();
  }

  private static String mountNamespace(long pid) {
    try {
      return Files.readSymbolicLink(Path.of("/proc/" + pid + "/ns/mnt")).toString();
    } catch (IOException e) {
      return null;
    }
  }
}
