package dev.cnioperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ForkSlot;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The program behind the README's first command ({@code e2e/bin/quickstart} runs it once it has
 * built the jars): the example network becomes Ready on the sandbox node, what its agent's probe
 * made (the example's bridge with the gateway address of the node's pod CIDR, host-local's
 * reservations, libcni's cache) never reaches this machine, and a stop, as Ctrl-C or a closed
 * terminal gives it, leaves nothing of it running.
 */
class QuickstartE2E {
  private static final Duration START_LIMIT = Duration.ofMinutes(4);
  private static final Pattern POD_CIDR = Pattern.compile("pod CIDR (\\d+\\.\\d+\\.\\d+\\.0/24)");

  @Test
  void theExampleNetworkIsReadyAndAStopLeavesNothingRunning() throws Exception {
    // Kept after the run: what a newcomer would have seen.
    Path log =
        Files.createDirectories(Path.of("target/it-logs").toAbsolutePath())
            .resolve("quickstart.log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // The quickstart's control plane picks its ports from this JVM's slice.
    command.addAll(ForkSlot.jvmArguments());
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), Quickstart.class.getName()));
    Process quickstart =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
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
      String podCidr = podCidr(shown);
      assertNothingOnTheMachine(podCidr, "while it runs");
      assertThat(sandboxReservations())
          .as("host-local's reservations of the probe, in the sandbox node's /var/lib/cni")
          .isDirectory();
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
      assertNothingOnTheMachine(podCidr, "after it stopped");
    } finally {
      // The handles taken while it ran: once the quickstart has gone, what it left is no longer
      // its descendant.
      started.forEach(ProcessHandle::destroyForcibly);
      quickstart.descendants().forEach(ProcessHandle::destroyForcibly);
      quickstart.destroyForcibly();
    }
  }

  /** The pod CIDR the quickstart printed for its node: the probe's addresses come from it. */
  private static String podCidr(String shown) {
    Matcher m = POD_CIDR.matcher(shown);
    assertThat(m.find()).as("the quickstart names its node's pod CIDR").isTrue();
    return m.group(1);
  }

  private static Path sandboxReservations() {
    return ToolPaths.repoRoot()
        .resolve("target/quickstart/nodes")
        .resolve(Quickstart.NODE)
        .resolve("var/lib/cni/networks")
        .resolve(Quickstart.NETWORK);
  }

  /**
   * This run's pod CIDR is in no address of the machine's interfaces (the bridge plugin gives the
   * example's bridge its gateway address) and in no name or content under the machine's {@code
   * /var/lib/cni} (host-local's reservations and last reserved address, libcni's cached results).
   * Other runs on the machine have other pod CIDRs, so what is found is this run's.
   */
  private static void assertNothingOnTheMachine(String podCidr, String when) throws Exception {
    String prefix = podCidr.substring(0, podCidr.lastIndexOf('.') + 1);
    CommandResult addresses = Commands.run("ip", "-o", "addr", "show").orThrow("ip addr");
    assertThat(addresses.stdout().lines().filter(l -> l.contains(" inet " + prefix)))
        .as("the machine's addresses in the quickstart's pod CIDR %s, %s", podCidr, when)
        .isEmpty();
    assertThat(cniStateMentioning(prefix))
        .as("the machine's /var/lib/cni entries naming %s addresses, %s", podCidr, when)
        .isEmpty();
  }

  private static List<Path> cniStateMentioning(String prefix) throws Exception {
    Path state = Path.of("/var/lib/cni");
    if (!Files.isDirectory(state)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(state, 3)) {
      return files
          .filter(Files::isRegularFile)
          .filter(f -> f.getFileName().toString().startsWith(prefix) || contains(f, prefix))
          .toList();
    }
  }

  private static boolean contains(Path file, String text) {
    try {
      return Files.readString(file).contains(text);
    } catch (IOException e) {
      return false; // gone meanwhile, or not text: another run's
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
