package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SIGKILL the agent again and again while it rewrites a large conflist: a reader never sees
 * anything but a complete old or new version, and after a restart the node converges with no
 * temporary files left.
 */
class KillDuringRewriteIT {
  private static final int ROUNDS = 12;

  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;

  @BeforeEach
  void setUp() throws Exception {
    cniNodes = new CniNodes(LocalControlPlane.shared());
    node = new SimulatedNode("kill", ToolPaths.pluginDir());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    cniNodes.delete(node.name);
    node.close();
  }

  /** A valid conflist of about 512 KiB, so a write takes long enough to be interrupted. */
  private static NodeNetwork big(char fill) {
    String pad = String.valueOf(fill).repeat(512 * 1024);
    String content =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"big\",\"plugins\":[{\"type\":\"bridge\",\"bridge\":\"ck0\","
            + "\"pad\":\""
            + pad
            + "\",\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.200.41.0/24\"}}]}";
    return CniNodes.network("big", 50, content);
  }

  private static int count(SimulatedNode node, String text) throws java.io.IOException {
    if (!Files.exists(node.log())) {
      return 0;
    }
    String log = Files.readString(node.log());
    int n = 0;
    for (int i = log.indexOf(text); i >= 0; i = log.indexOf(text, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void conflistIsAlwaysACompleteVersionWhenTheAgentIsKilledMidWrite() throws Exception {
    NodeNetwork a = big('a');
    NodeNetwork b = big('b');
    Path file = node.conflist(a.getFileName());
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    AtomicInteger reads = new AtomicInteger();
    AtomicBoolean reading = new AtomicBoolean(true);
    Thread reader =
        new Thread(
            () -> {
              while (reading.get()) {
                try {
                  String s = Files.readString(file);
                  reads.incrementAndGet();
                  if (!s.equals(a.getContent()) && !s.equals(b.getContent())) {
                    violations.add("partial content of " + s.length() + " chars");
                  }
                } catch (NoSuchFileException e) {
                  // before the first write
                } catch (Exception e) {
                  violations.add(e.toString());
                }
              }
            });
    reader.start();
    Random random = new Random(42);
    int kills = 0;
    try {
      int flips = 0;
      for (int round = 0; round < ROUNDS; round++) {
        int started = count(node, "event=agent-started");
        agent =
            AgentProcess.start(
                node.name, node.paths, cniNodes.controlPlane.kubeconfigFile(), node.log());
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> count(node, "event=agent-started") > started);
        // Rewrites in quick succession; the kill lands somewhere among them.
        for (int i = 0; i < 6; i++) {
          cniNodes.put(node.name, List.of(flips++ % 2 == 0 ? a : b));
          Thread.sleep(200 + random.nextInt(800));
        }
        agent.kill9();
        kills++;
      }
      cniNodes.put(node.name, List.of(b));
      agent =
          AgentProcess.start(
              node.name, node.paths, cniNodes.controlPlane.kubeconfigFile(), node.log());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.exists(file) && Files.readString(file).equals(b.getContent()));
    } finally {
      reading.set(false);
      reader.join();
    }
    int writes = count(node, "event=conflist-written network=big");
    System.out.printf(
        "kill-during-rewrite: kills=%d writes=%d reads=%d violations=%d%n",
        kills, writes, reads.get(), violations.size());
    assertThat(violations).isEmpty();
    assertThat(reads.get()).isPositive();
    // Enough rewrites happened between the kills for the test to mean something (a loaded
    // machine starts the JVM slowly, so not every round gets to write).
    assertThat(writes).as("rewrites between kills").isGreaterThanOrEqualTo(ROUNDS / 2);
    // Temporary files of killed writers are gone after the restart.
    assertThat(List.of(node.paths.confDir().toFile().list())).containsExactly(a.getFileName());
    assertThat(List.of(node.paths.binDir().toFile().list()))
        .containsExactlyInAnyOrder("bridge", "host-local");
  }
}
