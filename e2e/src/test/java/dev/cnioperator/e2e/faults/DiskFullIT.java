package dev.cnioperator.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.e2e.CniNetworkYaml;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node's conf dir is a 64 KiB tmpfs that fills up, and an edit brings a conflist larger than the
 * space left: the old file must stay whole, the agent must report the network Failed with a message
 * about space, and once space is freed the node converges to the edit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DiskFullIT {
  private static final int LEFT_FREE = 12 * 1024;
  private static final int PADDING = 32 * 1024;
  private static final String ENOSPC = "No space left on device";

  private FaultProduct fault;

  @RegisterExtension final FaultDiagnosis diagnosis = new FaultDiagnosis(() -> fault);
  private Path confDir;
  private SandboxNode node;

  @BeforeAll
  void installTheProductWithATinyConfDir() throws IOException {
    Prerequisites.requireCommand("mount");
    fault = FaultProduct.install("full");
    fault.startOperator(ProcessOptions.DEFAULT);
    String nodeName = fault.createNode("full");
    // LocalProduct's layout of a sandbox node, mounted before the agent first looks at it.
    confDir = Files.createDirectories(fault.work().resolve("nodes/" + nodeName + "/etc/cni/net.d"));
    Commands.run("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", confDir.toString())
        .orThrow("mount tmpfs");
    // A short resync, so that freed space is noticed without any event from the API server.
    node =
        fault
            .product()
            .startAgent(nodeName, null, ProcessOptions.DEFAULT.withArgs("--resync-seconds", "2"));
    assertThat(node.confDir()).isEqualTo(confDir);
  }

  @AfterAll
  void removeIt() {
    if (fault == null) {
      return;
    }
    // Networks go while the agent still runs (their finalizer waits for it), then the processes.
    try {
      fault.close();
    } finally {
      if (confDir != null && !Commands.run("umount", confDir.toString()).ok()) {
        Commands.run("umount", "-l", confDir.toString());
      }
    }
  }

  @Test
  void aFullConfDirKeepsTheOldFileAndTheNodeConvergesOnceSpaceIsFreed() throws Exception {
    String name = TestNames.unique("full");
    String file = "50-" + name + ".conflist";
    fault.apply(pausing(fault.bridgeNetworkYaml(name, 1400, 60)));
    fault.waitReady(name);
    String old = node.conflist(file).orElseThrow();

    Path filler = confDir.resolve(".filler");
    long filled = fillLeaving(filler, LEFT_FREE);
    ConflistSampler.Figures figures;
    try (ConflistSampler sampler = ConflistSampler.start(List.of(confDir.resolve(file)))) {
      long failuresBefore = spaceFailures();
      fault.apply(
          pausing(fault.bridgeNetworkYaml(name, 1300, 60, "faultPadding: " + "x".repeat(PADDING))));
      // The agent's log is the only sign it tried (see the disabled test below).
      await().atMost(FaultProduct.WAIT).until(() -> spaceFailures() > failuresBefore + 1);
      assertThat(node.conflist(file)).as("the old file, whole").contains(old);

      Files.delete(filler);
      await()
          .atMost(FaultProduct.WAIT)
          .untilAsserted(() -> assertThat(node.conflist(file).orElseThrow()).contains("1300"));
      fault.waitReady(name);
      figures = sampler.stop();
      assertThat(sampler.contents()).as("revisions the node went through").hasSize(2);
    }
    System.out.printf(
        "fault=disk-full conf-dir=64KiB filler=%d new-conflist-bytes=%d %s lost=%s%n",
        filled,
        node.conflist(file).orElseThrow().length(),
        figures,
        figures.lost() == 0 ? "nothing" : figures.lost());
    assertThat(figures.firstInvalid()).isEmpty();
    assertThat(figures.lost()).as("reads that found no file or a broken one").isZero();
  }

  @Test
  void aFullConfDirIsReportedFailedWithAMessageAboutSpace() throws Exception {
    String name = TestNames.unique("fullmsg");
    String file = "50-" + name + ".conflist";
    fault.apply(pausing(fault.bridgeNetworkYaml(name, 1400, 60)));
    fault.waitReady(name);
    Path filler = confDir.resolve(".filler");
    fillLeaving(filler, LEFT_FREE);
    try {
      fault.apply(
          pausing(fault.bridgeNetworkYaml(name, 1300, 60, "faultPadding: " + "x".repeat(PADDING))));
      NodeNetworkStatus failed =
          await()
              .atMost(FaultProduct.WAIT)
              .until(
                  () -> fault.nodeStatus(node.name(), name).orElse(null),
                  s -> s != null && s.getState() == NetworkState.Failed);
      System.out.printf(
          "fault=disk-full state=%s message=\"%s\"%n", failed.getState(), failed.getMessage());
      assertThat(failed.getMessage()).containsIgnoringCase("space");
      assertThat(node.conflist(file).orElseThrow()).contains("1400");
    } finally {
      Files.deleteIfExists(filler);
      // The tmpfs is shared with the other test: leave it as empty as it was found.
      fault.controlPlane().kubectl("delete", "cninetwork", name, "--timeout=120s");
      await().atMost(FaultProduct.WAIT).until(() -> node.conflist(file).isEmpty());
    }
  }

  /**
   * The network with a rollout that pauses on a failure. A node that cannot write a revision fails
   * it, and with the default (Rollback) the operator would give the node the old revision back at
   * once: the file on disk would then already be right and the agent would stop retrying. Pausing
   * keeps the new revision on the node, so the agent retries it until space is freed.
   */
  private static String pausing(CniNetworkYaml network) {
    return network.spec("rollout: {onFailure: Pause}").yaml();
  }

  private long spaceFailures() {
    return node.agent().output().lines().filter(l -> l.contains(ENOSPC)).count();
  }

  /** Writes {@code filler} until about {@code leave} bytes are free in the conf dir. */
  private long fillLeaving(Path filler, int leave) throws IOException {
    long room = Files.getFileStore(confDir).getUsableSpace() - leave;
    byte[] chunk = new byte[4096];
    long written = 0;
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (written + chunk.length <= room) {
        out.write(chunk);
        written += chunk.length;
      }
    }
    return written;
  }
}
