package dev.cnioperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The program behind the README's first command ({@code e2e/bin/quickstart} runs it once it has
 * built the jars): the example network becomes Ready on the sandbox node, and a stop, as Ctrl-C or
 * a closed terminal gives it, leaves nothing of it running.
 */
class QuickstartE2E {
  private static final Duration START_LIMIT = Duration.ofMinutes(4);

  @Test
  void theExampleNetworkIsReadyAndAStopLeavesNothingRunning() throws Exception {
    // Kept after the run: what a newcomer would have seen.
    Path log =
        Files.createDirectories(Path.of("target/it-logs").toAbsolutePath())
            .resolve("quickstart.log");
    Process quickstart =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Quickstart.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    List<ProcessHandle> started = List.of();
    try {
      await("the quickstart waits for Ctrl-C")
          .atMost(START_LIMIT)
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> !quickstart.isAlive() || Files.readString(log).contains("Press Ctrl-C"));
      String shown = Files.readString(log);
      assertThat(shown)
          .as("what the quickstart printed (%s)", log)
          .contains("cninetwork.cnioperator.dev/" + Quickstart.NETWORK + " condition met")
          .contains("\"type\": \"bridge\"")
          .contains("Ready in ");
      started = quickstart.descendants().toList();
      assertThat(started)
          .as("etcd, kube-apiserver, the operator and the agent run under the quickstart")
          .hasSizeGreaterThanOrEqualTo(4);

      quickstart.destroy(); // SIGTERM
      assertThat(quickstart.waitFor(90, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
      for (ProcessHandle p : started) {
        assertThat(exited(p))
            .as("%s (pid %d) exited with the quickstart", command(p), p.pid())
            .isTrue();
      }
      assertThat(Files.readString(log)).contains("Stopping.");
    } finally {
      // The handles taken while it ran: once the quickstart has gone, what it left is no longer
      // its descendant.
      started.forEach(ProcessHandle::destroyForcibly);
      quickstart.descendants().forEach(ProcessHandle::destroyForcibly);
      quickstart.destroyForcibly();
    }
  }

  /** Whether {@code p} has exited, or does within a few seconds (its parent may be reaping it). */
  private static boolean exited(ProcessHandle p) throws Exception {
    try {
      p.onExit().get(5, TimeUnit.SECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    }
  }

  private static String command(ProcessHandle p) {
    return p.info().command().orElse("?");
  }
}
