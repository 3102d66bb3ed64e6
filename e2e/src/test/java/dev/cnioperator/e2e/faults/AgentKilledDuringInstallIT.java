package dev.cnioperator.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.InstalledPlugin;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.TestNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The agent is SIGKILLed while it downloads a new revision of a CniPlugin binary from a server that
 * trickles it: the old binary must stay byte for byte and still run, no partial download may sit at
 * the binary's path, and a restarted agent completes the install and leaves no temporary file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgentKilledDuringInstallIT {
  private static final int NEW_REVISION_BYTES = 6 << 20;
  private static final long KILL_AFTER_BYTES = 1 << 20;

  private FaultProduct fault;

  @RegisterExtension final FaultDiagnosis diagnosis = new FaultDiagnosis(() -> fault);
  private PluginServer server;

  @BeforeAll
  void installTheProduct() {
    fault = FaultProduct.install("inst");
    server = PluginServer.start();
  }

  @AfterAll
  void removeIt() {
    if (fault != null) {
      fault.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theOldBinaryStaysUsableAndARestartedAgentCompletesTheInstall() throws Exception {
    fault.startOperator(ProcessOptions.DEFAULT);
    SandboxNode node = fault.product().startAgent(fault.createNode("inst"));
    String binary = TestNames.unique("slowplug");
    byte[] v1 = PluginServer.scriptPlugin("v1", 0);
    byte[] v2 = PluginServer.scriptPlugin("v2", NEW_REVISION_BYTES);
    fault.apply(cniPlugin(binary, server.publish(binary + "-v1", v1), PluginServer.sha256(v1)));
    String network = TestNames.unique("plug");
    fault.apply(fault.singlePluginNetwork(network, binary, 60));
    fault.waitReady(network);
    Path installed = node.binDir().resolve(binary);
    assertThat(Files.readAllBytes(installed)).isEqualTo(v1);

    CountDownLatch halfWay = server.slowDown(KILL_AFTER_BYTES);
    fault.apply(cniPlugin(binary, server.publish(binary + "-v2", v2), PluginServer.sha256(v2)));
    assertThat(halfWay.await(60, TimeUnit.SECONDS)).as("the agent started downloading v2").isTrue();
    node.agent().kill();
    long sent = server.slowBytesSent();
    List<String> leftAtKill = temporaryFiles(node.binDir());

    boolean intact = java.util.Arrays.equals(Files.readAllBytes(installed), v1);
    CommandResult version = runVersion(installed);
    System.out.printf(
        "fault=agent-sigkill-during-install new-revision-bytes=%d sent-before-kill=%d"
            + " temp-files-at-kill=%d old-binary-intact=%s old-binary-runs=%s%n",
        v2.length, sent, leftAtKill.size(), intact, version.ok());
    assertThat(sent).as("killed before the download finished").isLessThan(v2.length);
    assertThat(intact).as("the old binary is byte-identical").isTrue();
    assertThat(Files.isExecutable(installed)).isTrue();
    assertThat(version.ok()).as("the old binary runs: %s", version.stderr()).isTrue();
    assertThat(version.stdout()).contains("supportedVersions");

    server.fullSpeed();
    node.agent().start();
    await()
        .atMost(FaultProduct.WAIT)
        .untilAsserted(
            () -> {
              assertThat(Files.readAllBytes(installed)).isEqualTo(v2);
              assertThat(reportedSha(node.name(), binary)).contains(PluginServer.sha256(v2));
            });
    List<String> leftAfter = temporaryFiles(node.binDir());
    System.out.printf(
        "fault=agent-sigkill-during-install after-restart installed=v2 temp-files=%d lost=%s%n",
        leftAfter.size(), leftAfter.isEmpty() && intact ? "nothing" : "see figures");
    assertThat(leftAfter).as("temporary files left in the bin dir").isEmpty();
    assertThat(runVersion(installed).ok()).isTrue();
  }

  private String cniPlugin(String binary, String url, String sha256) {
    return """
        apiVersion: cnioperator.dev/v1alpha1
        kind: CniPlugin
        metadata:
          name: %1$s
        spec:
          binaryName: %1$s
          url: %2$s
          sha256: %3$s
          nodeSelector:
            %4$s
        """
        .formatted(binary, url, sha256, fault.selector());
  }

  private Optional<String> reportedSha(String node, String binary) {
    return fault
        .cniNode(node)
        .map(CniNode::getStatus)
        .map(CniNodeStatus::getPlugins)
        .flatMap(l -> l.stream().filter(p -> binary.equals(p.getName())).findFirst())
        .map(InstalledPlugin::getSha256);
  }

  private static CommandResult runVersion(Path plugin) {
    return Commands.run(
        List.of(plugin.toString()), Map.of("CNI_COMMAND", "VERSION"), null, Duration.ofSeconds(10));
  }

  /** Files in the bin dir that are not plugins: the agent's temporary files. */
  private static List<String> temporaryFiles(Path binDir) throws IOException {
    try (Stream<Path> files = Files.list(binDir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")).toList();
    }
  }
}
