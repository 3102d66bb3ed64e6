package dev.cnioperator.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.ApiServerProxy;
import dev.cnioperator.testkit.TestNames;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The API server goes away in the middle of a rollout to two nodes: the operator and both agents
 * reach it through a proxy that the test cuts once the canary has written an edit and before the
 * other node has it, and again while a second edit is applied. No node may ever hold a missing,
 * partial or invalid conflist, each revision is written once per node, and the network converges
 * when the API server is back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiServerCutIT {
  private static final Duration OUTAGE = Duration.ofSeconds(5);

  private FaultProduct fault;

  @RegisterExtension final FaultDiagnosis diagnosis = new FaultDiagnosis(() -> fault);
  private ApiServerProxy proxy;

  @BeforeAll
  void installTheProductBehindAProxy() {
    fault = FaultProduct.install("cut");
    proxy = ApiServerProxy.in(fault.controlPlane());
  }

  @AfterAll
  void removeIt() {
    if (proxy != null) {
      proxy.restore();
    }
    if (fault != null) {
      fault.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void aCutMidRolloutLosesNothingAndWritesEachRevisionOncePerNode() throws Exception {
    ProcessOptions viaProxy = ProcessOptions.DEFAULT.through(proxy);
    fault.startOperator(viaProxy);
    // A short resync: an agent cut off then shows in its log that it keeps trying.
    ProcessOptions agents = viaProxy.withArgs("--resync-seconds", "2");
    List<SandboxNode> nodes =
        List.of(
            fault.product().startAgent(fault.createNode("cuta"), null, agents),
            fault.product().startAgent(fault.createNode("cutb"), null, agents));
    String name = TestNames.unique("cut");
    String file = "50-" + name + ".conflist";
    fault.apply(fault.bridgeNetwork(name, 1400, 60));
    fault.waitReady(name);

    ConflistSampler.Figures figures;
    try (ConflistSampler sampler =
        ConflistSampler.start(nodes.stream().map(n -> n.confDir().resolve(file)).toList())) {
      // The first edit is being carried out when the connection of every process drops: the
      // canary (the rollout's first batch, one node) has written it and is proving it, and the
      // other node waits for that proof to reach the operator (docs/rollout.md).
      fault.apply(fault.bridgeNetwork(name, 1300, 60));
      await("the canary writes the edit")
          .atMost(FaultProduct.WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> holding(nodes, file, "1300") > 0);
      proxy.cut();
      long onDiskAtCut = holding(nodes, file, "1300");
      System.out.printf(
          "fault=api-server-cut at-cut: nodes-with-edit-on-disk=%d/%d%n",
          onDiskAtCut, nodes.size());
      assertThat(onDiskAtCut).as("nodes holding the edit at the cut: the canary alone").isOne();
      Thread.sleep(OUTAGE.toMillis());
      proxy.restore();
      awaitOnEveryNode(nodes, file, "1300");
      // Both nodes' proofs of the first edit must reach the operator before the second edit: an
      // edit that supersedes an unfinished rollout starts from the last stable revision, and a node
      // holding the unfinished one takes the stable one back until its turn (docs/rollout.md), a
      // write of its own. Cut here, the last proof waits out the outage in the agent's retry.
      fault.waitRolledOut(name);

      // The second edit is made while nobody can hear of it: the nodes change nothing.
      proxy.cut();
      fault.apply(fault.bridgeNetwork(name, 1200, 60));
      for (SandboxNode n : nodes) {
        awaitPassesSkipped(n, 2);
      }
      for (SandboxNode n : nodes) {
        assertThat(n.conflist(file).orElseThrow()).contains("1300");
      }
      proxy.restore();
      awaitOnEveryNode(nodes, file, "1200");
      fault.waitReady(name);
      figures = sampler.stop();
    }

    StringBuilder writes = new StringBuilder();
    for (SandboxNode n : nodes) {
      long count = FaultProduct.conflistWrites(n, file);
      writes.append(' ').append(n.name()).append("-writes=").append(count);
      assertThat(count).as("writes of %s on %s: v1, edit 1, edit 2", file, n.name()).isEqualTo(3);
    }
    System.out.printf(
        "fault=api-server-cut first-outage=%ss %s%s lost=%s%n",
        OUTAGE.toSeconds(), figures, writes, figures.lost() == 0 ? "nothing" : figures.lost());
    assertThat(figures.firstInvalid()).isEmpty();
    assertThat(figures.lost()).as("reads that found no file or a broken one").isZero();
  }

  private static long holding(List<SandboxNode> nodes, String file, String mtu) {
    return nodes.stream().filter(n -> n.conflist(file).orElse("").contains(mtu)).count();
  }

  /** Waits until {@code node}'s agent has tried {@code n} more passes and found no API server. */
  private static void awaitPassesSkipped(SandboxNode node, int n) {
    String skipped = "event=pass-skipped node=" + node.name() + " reason=api-unreachable";
    long before = node.agent().output().lines().filter(l -> l.contains(skipped)).count();
    await(node.name() + " skipping passes")
        .atMost(FaultProduct.WAIT)
        .until(
            () ->
                node.agent().output().lines().filter(l -> l.contains(skipped)).count()
                    >= before + n);
  }

  private static void awaitOnEveryNode(List<SandboxNode> nodes, String file, String mtu) {
    await()
        .atMost(FaultProduct.WAIT)
        .untilAsserted(
            () -> {
              for (SandboxNode n : nodes) {
                assertThat(n.conflist(file).orElseThrow()).as(n.name()).contains(mtu);
              }
            });
  }
}
