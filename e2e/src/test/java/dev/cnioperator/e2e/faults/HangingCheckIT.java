package dev.cnioperator.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.e2e.PodAttachments;
import dev.cnioperator.e2e.PodAttachments.PodAttachment;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.TestNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A plugin that never answers CHECK (a script in the node's bin dir, a binary the agent does not
 * own and leaves alone) and leaves an orphan holding its stdout: its attachment must be reported
 * failing with a timeout, while the CHECK loop keeps checking another network's real bridge
 * attachment every interval.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HangingCheckIT {
  private static final int PLUGIN_TIMEOUT_SECONDS = 3;
  private static final int INTERVAL_SECONDS = 5;
  private static final Duration WATCH = Duration.ofSeconds(3 * INTERVAL_SECONDS + 2);

  private FaultProduct fault;

  @RegisterExtension final FaultDiagnosis diagnosis = new FaultDiagnosis(() -> fault);
  private Path hangPids;

  @BeforeAll
  void installTheProduct() {
    fault = FaultProduct.install("hang");
  }

  @AfterAll
  void removeIt() throws IOException {
    if (fault == null) {
      return;
    }
    fault.close();
    // The agent's timeout should have ended every hung CHECK; whatever it missed goes here.
    if (hangPids != null && Files.exists(hangPids)) {
      for (String pid : Files.readAllLines(hangPids)) {
        // Only if the pid is still one of the plugin's sleeps, not a process that reused it.
        ProcessHandle.of(Long.parseLong(pid.strip()))
            .filter(p -> p.info().commandLine().orElse("").endsWith("sleep 300"))
            .ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  @Test
  void aHungCheckTimesOutAndOtherNetworksKeepBeingChecked() throws Exception {
    fault.startOperator(ProcessOptions.DEFAULT);
    String nodeName = fault.createNode("hang");
    hangPids = fault.work().resolve("hang.pids");
    Path binDir =
        Files.createDirectories(fault.work().resolve("nodes/" + nodeName + "/opt/cni/bin"));
    Files.writeString(binDir.resolve("hang"), hangingPlugin(hangPids));
    Files.setPosixFilePermissions(
        binDir.resolve("hang"), PosixFilePermissions.fromString("rwxr-xr-x"));
    SandboxNode node =
        fault
            .product()
            .startAgent(
                nodeName,
                null,
                ProcessOptions.DEFAULT.withArgs(
                    "--plugin-timeout-seconds", Integer.toString(PLUGIN_TIMEOUT_SECONDS)));
    String healthy = TestNames.unique("ok");
    String hanging = TestNames.unique("hang");
    fault.apply(fault.bridgeNetwork(healthy, 1400, INTERVAL_SECONDS));
    fault.apply(fault.singlePluginNetwork(hanging, "hang", INTERVAL_SECONDS));
    fault.waitReady(healthy);
    fault.waitReady(hanging);

    String podNamespace = fault.createNamespace("hangpods");
    try (PodAttachments pods =
        new PodAttachments(fault.controlPlane().client(), node, podNamespace)) {
      pods.addWithLibrary(healthy + "-p", "50-" + healthy + ".conflist");
      PodAttachment stuck = pods.addWithLibrary(hanging + "-p", "50-" + hanging + ".conflist");

      FailingAttachment failing =
          await()
              .atMost(FaultProduct.WAIT)
              .until(() -> failingOf(nodeName, hanging, stuck.name()), f -> f != null);

      // The CHECK loop's liveness is in the log and metrics, not in a status rewritten each pass.
      long passesBefore = checkPasses(node, healthy);
      Thread.sleep(WATCH.toMillis());
      long checkPasses = checkPasses(node, healthy) - passesBefore;
      NodeNetworkStatus ok = fault.nodeStatus(nodeName, healthy).orElseThrow();
      System.out.printf(
          "fault=hanging-check timeout=%ds hung-attachment-error=\"%s\" healthy-network-check-passes"
              + "-in-%ds=%d healthy=%d/%d lost=%s%n",
          PLUGIN_TIMEOUT_SECONDS,
          failing.getError(),
          WATCH.toSeconds(),
          checkPasses,
          ok.getAttachments().getHealthy(),
          ok.getAttachments().getTotal(),
          ok.getAttachments().getHealthy() == 1 && checkPasses >= 3 ? "nothing" : "checks");
      assertThat(failing.getError()).containsAnyOf("did not finish within", "timed out");
      assertThat(checkPasses)
          .as("the healthy network kept being CHECKed while CHECK hung")
          .isGreaterThanOrEqualTo(3);
      assertThat(ok.getAttachments().getTotal()).isEqualTo(1);
      assertThat(ok.getAttachments().getHealthy()).isEqualTo(1);
    }
  }

  private static long checkPasses(SandboxNode node, String network) {
    return node.agent()
        .output()
        .lines()
        .filter(l -> l.contains("event=check-pass network=" + network + " "))
        .count();
  }

  private FailingAttachment failingOf(String node, String network, String pod) {
    return fault
        .nodeStatus(node, network)
        .map(NodeNetworkStatus::getAttachments)
        .map(a -> a.getFailing() == null ? List.<FailingAttachment>of() : a.getFailing())
        .flatMap(l -> l.stream().filter(f -> pod.equals(f.getPod())).findFirst())
        .orElse(null);
  }

  /**
   * Adds without doing anything, hangs in CHECK and leaves behind a daemonized child that holds its
   * stdout open, as a badly written plugin would (writing the pids, so the test can end what the
   * agent's timeout cannot reach), deletes without complaint.
   */
  private static String hangingPlugin(Path pids) {
    return """
        #!/bin/sh
        case "$CNI_COMMAND" in
        VERSION) echo '{"cniVersion":"1.0.0","supportedVersions":["0.4.0","1.0.0"]}' ;;
        ADD) cat >/dev/null; echo '{"cniVersion":"1.0.0","interfaces":[],"ips":[]}' ;;
        CHECK) ( sleep 300 & echo $! >> %1$s ); echo $$ >> %1$s; exec sleep 300 ;;
        *) cat >/dev/null ;;
        esac
        """
        .formatted(pids);
  }
}
