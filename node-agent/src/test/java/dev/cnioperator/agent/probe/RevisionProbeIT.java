package dev.cnioperator.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.AgentProgram;
import dev.cnioperator.agent.check.AttachmentChecker;
import dev.cnioperator.agent.check.ReportedFailures;
import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.kube.AgentEvents;
import dev.cnioperator.agent.network.AttachmentRuntimes;
import dev.cnioperator.agent.network.HostLocalReservations;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.ManagedNetwork.CheckSettings;
import dev.cnioperator.agent.network.ManagedNetwork.CleanupSettings;
import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.agent.network.SandboxNetns;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.agent.observe.NetworkMetrics;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.cni.runtime.CniRuntime;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe with the real reference plugins (bridge + host-local) in real network namespaces: good
 * content passes, a bridge MTU no interface accepts fails at ADD, and neither leaves a namespace,
 * an interface, a reservation or a cache entry behind; nor does a probe killed halfway once swept.
 */
class RevisionProbeIT {
  @TempDir Path dir;

  private String bridge;
  private String subnet;
  private ResultCache cache;
  private CniRuntime runtime;
  private ExecutorService workers;
  private ProbeIdentity identity;
  private RevisionProbe probe;
  private RevisionProbe.LiveCheck live;
  private final List<NetworkNamespace> namespaces = new ArrayList<>();

  @BeforeEach
  void setUp() {
    Prerequisites.requireRoot();
    Prerequisites.requireCommand("ip");
    bridge = TestNames.unique("pbr");
    subnet = "10.209." + ThreadLocalRandom.current().nextInt(256) + ".0/24";
    cache = new ResultCache(dir.resolve("cache"));
    runtime =
        new CniRuntime(
            new ProcessPluginExecutor(),
            List.of(ToolPaths.pluginDir()),
            cache,
            Duration.ofSeconds(30));
    workers = Executors.newFixedThreadPool(2);
    identity = ProbeIdentity.forNode(TestNames.unique("probenode"));
    probe = probe(runtime);
    live = liveCheck(runtime);
  }

  /** The probe as the agent builds it, on {@code runtime}, with no runtime refusing anything. */
  private RevisionProbe probe(CniRuntime runtime) {
    return new RevisionProbe(
        runtime,
        new HostLocalReservations(HostLocalReservations.DEFAULT_DATA_DIR, dir.resolve("cache")),
        new ProbeNamespaces(),
        identity,
        Clock.systemUTC(),
        new ProbeDiagnosis(),
        list -> Optional.empty());
  }

  /** The CHECK of the live attachments, as the network's loop hands it to the probe. */
  private RevisionProbe.LiveCheck liveCheck(CniRuntime runtime) {
    AttachmentChecker checker =
        new AttachmentChecker(
            new AttachmentRuntimes(runtime, runtime),
            workers,
            new AgentEvents(null, "probe-node", Clock.systemUTC(), AgentProgram.API_CALL_DEADLINE),
            SandboxNetns.NONE,
            network -> null,
            network -> false);
    ReportedFailures reported = new ReportedFailures();
    NetworkMetrics metrics =
        new AgentMetrics(Duration.ofSeconds(30), Clock.systemUTC()).network("probe");
    return network -> checker.check(network, reported, metrics);
  }

  @AfterEach
  void tearDown() throws Exception {
    namespaces.forEach(NetworkNamespace::close);
    for (String ns : new ProbeNamespaces().owned(identity)) {
      Commands.run("ip", "netns", "delete", ns);
    }
    Commands.run("ip", "link", "delete", bridge);
    workers.shutdownNow();
  }

  @Test
  void goodContentPassesWithStatusAddCheckDelAndLeavesNothingBehind() throws Exception {
    ManagedNetwork network = network("1.1.0", "\"mtu\":1400", true);

    ProbeReport report = probe.prove(network, live);

    assertThat(report.getResult()).as(report.getMessage()).isEqualTo(ProbeResult.Passed);
    assertThat(report.getSha256()).isEqualTo(network.conflist().sha256());
    assertThat(report.getTime()).isNotNull();
    assertNothingLeft(network);
    // The probe did run ADD: the bridge it asked for exists (without ports, its MTU is back to
    // the default).
    assertThat(Commands.run("ip", "link", "show", bridge).exitCode()).isZero();
  }

  @Test
  void bridgeMtuNoInterfaceAcceptsFailsAtAddAndLeavesNothingBehind() throws Exception {
    ManagedNetwork network = network("1.0.0", "\"mtu\":70000", true);

    ProbeReport report = probe.prove(network, live);

    assertThat(report.getResult()).isEqualTo(ProbeResult.Failed);
    assertThat(report.getMessage()).startsWith("ADD: ");
    assertThat(report.getSha256()).isEqualTo(network.conflist().sha256());
    assertNothingLeft(network);
  }

  @Test
  void aFailureThatDoesNotHappenAgainIsNotReported() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path checks = dir.resolve("checks");
    Files.writeString(bin.resolve("flaky"), flakyCheckPlugin(checks));
    Files.setPosixFilePermissions(
        bin.resolve("flaky"), java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    CniRuntime withFlaky =
        new CniRuntime(
            new ProcessPluginExecutor(),
            List.of(ToolPaths.pluginDir(), bin),
            cache,
            Duration.ofSeconds(30));
    RevisionProbe flakyProbe = probe(withFlaky);
    String name = "flaky-" + bridge;
    String content =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"" + name + "\",\"plugins\":[{\"type\":\"flaky\"}]}";
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    ManagedNetwork network =
        new ManagedNetwork(
            new DesiredConflist(name, "50-" + name + ".conflist", Sha256.hex(bytes), content),
            null,
            NetworkConfigList.parse(bytes),
            null,
            new NetworkPlugins(name, "1.0.0", List.of("flaky")),
            new CheckSettings(true, Duration.ofSeconds(60)),
            new CleanupSettings(false, Duration.ofSeconds(300), false, 0.5),
            ManagedNetwork.Proof.ATTACHMENT);

    ProbeReport report = flakyProbe.prove(network, liveCheck(withFlaky));

    assertThat(report.getResult()).as(report.getMessage()).isEqualTo(ProbeResult.Passed);
    assertThat(Files.readAllLines(checks)).as("CHECKs run").hasSize(2);
    assertThat(new ProbeNamespaces().owned(identity)).isEmpty();
    assertThat(cache.list(name)).isEmpty();
  }

  /** A plugin whose first CHECK fails and every later one passes; it logs each CHECK. */
  private static String flakyCheckPlugin(Path checks) {
    return """
        #!/bin/sh
        cat >/dev/null
        case "$CNI_COMMAND" in
        VERSION) echo '{"cniVersion":"1.0.0","supportedVersions":["1.0.0"]}' ;;
        ADD) echo '{"cniVersion":"1.0.0","interfaces":[],"ips":[]}' ;;
        CHECK)
          if [ -e %1$s ]; then echo check >> %1$s; exit 0; fi
          echo check >> %1$s
          echo '{"cniVersion":"1.0.0","code":999,"msg":"a race, not the content"}'
          exit 1 ;;
        esac
        """
        .formatted(checks);
  }

  @Test
  void withTheProbeAttachmentOffOnlyStatusAndLiveChecksGate() throws Exception {
    // The same broken MTU passes: nothing is ADDed, and there is nothing else to fail.
    ManagedNetwork network = network("1.1.0", "\"mtu\":70000", false);

    ProbeReport report = probe.prove(network, live);

    assertThat(report.getResult()).as(report.getMessage()).isEqualTo(ProbeResult.Passed);
    assertThat(Commands.run("ip", "link", "show", bridge).exitCode()).isNotZero();
    assertNothingLeft(network);
  }

  @Test
  void liveAttachmentsAreCheckedButTheProbeIsNeverCountedAsOne() throws Exception {
    ManagedNetwork network = network("1.0.0", "\"mtu\":1400", true);
    NetworkNamespace pod = NetworkNamespace.create("pbpod");
    namespaces.add(pod);
    Attachment pods = Attachment.of("ctr-live-" + pod.name(), pod.path().toString(), "eth0");
    runtime.addNetworkList(network.list(), pods);
    try {
      ProbeReport report = probe.prove(network, live);

      assertThat(report.getResult()).as(report.getMessage()).isEqualTo(ProbeResult.Passed);
      assertThat(cache.list(network.list().name()))
          .extracting(CachedAttachment::containerId)
          .containsExactly(pods.containerId());
      assertThat(reservations(network)).hasSize(1);
    } finally {
      runtime.delNetworkList(network.list(), pods);
    }
  }

  @Test
  void probeKilledAfterAddIsSweptBeforeTheNextOne() throws Exception {
    ManagedNetwork network = network("1.0.0", "\"mtu\":1400", true);
    addProbeAsAKilledAgentLeftIt(network);
    assertThat(cache.list(network.list().name())).hasSize(1);
    assertThat(reservations(network)).hasSize(1);

    probe.sweep(network);

    assertNothingLeft(network);
  }

  @Test
  void probeKilledBetweenIpamAndCacheIsSweptByItsReservation() throws Exception {
    ManagedNetwork network = network("1.0.0", "\"mtu\":1400", true);
    String id = addProbeAsAKilledAgentLeftIt(network);
    // As if killed before libcni's cache entry was written: only host-local's reservation remains.
    cache.remove(network.list().name(), id, ProbeIdentity.IF_NAME);
    assertThat(reservations(network)).hasSize(1);

    ProbeReport report = probe.prove(network, live);

    assertThat(report.getResult()).as(report.getMessage()).isEqualTo(ProbeResult.Passed);
    assertNothingLeft(network);
  }

  /** ADD under the probe's id in a namespace of the probe's name, and no DEL. */
  private String addProbeAsAKilledAgentLeftIt(ManagedNetwork network) throws Exception {
    String id = identity.containerId(network.conflist().sha256());
    Path netns = new ProbeNamespaces().create(id);
    runtime.addNetworkList(
        network.list(), Attachment.of(id, netns.toString(), ProbeIdentity.IF_NAME));
    return id;
  }

  private void assertNothingLeft(ManagedNetwork network) throws Exception {
    assertThat(new ProbeNamespaces().owned(identity)).as("probe namespaces").isEmpty();
    assertThat(cache.list(network.list().name())).as("cache entries").isEmpty();
    assertThat(reservations(network)).as("host-local reservations").isEmpty();
    String ports = Commands.run("ip", "-o", "link", "show", "master", bridge).stdout();
    assertThat(ports).as("bridge ports").isBlank();
  }

  private List<String> reservations(ManagedNetwork network) {
    return dev.cnioperator.testkit.HostLocalStore.reservedIps(
        dir.resolve("ipam").resolve(network.list().name()));
  }

  private ManagedNetwork network(String version, String bridgeOption, boolean attach) {
    String name = "probe-" + bridge;
    String content =
        "{\"cniVersion\":\""
            + version
            + "\",\"name\":\""
            + name
            + "\",\"plugins\":[{\"type\":\"bridge\",\"bridge\":\""
            + bridge
            + "\","
            + bridgeOption
            + ",\"ipam\":{\"type\":\"host-local\",\"subnet\":\""
            + subnet
            + "\",\"dataDir\":\""
            + dir.resolve("ipam")
            + "\"}}]}";
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    NetworkConfigList list = NetworkConfigList.parse(bytes);
    return new ManagedNetwork(
        new DesiredConflist(name, "50-" + name + ".conflist", Sha256.hex(bytes), content),
        null,
        list,
        null,
        new NetworkPlugins(name, version, List.of("bridge", "host-local")),
        new CheckSettings(true, Duration.ofSeconds(60)),
        new CleanupSettings(false, Duration.ofSeconds(300), false, 0.5),
        attach ? ManagedNetwork.Proof.ATTACHMENT : ManagedNetwork.Proof.CHECKS);
  }
}
