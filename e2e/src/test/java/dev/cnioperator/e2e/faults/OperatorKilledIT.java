package dev.cnioperator.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.ProductProcess;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.TestNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The operator is SIGKILLed while it rolls an edit out to three nodes, as soon as the first CniNode
 * carries the new revision. After a restart every node must reach the new revision, and no CniNode
 * and no node's conf dir may ever have lost a network, neither the edited one nor another one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorKilledIT {
  private FaultProduct fault;

  @BeforeAll
  void installTheProduct() {
    fault = FaultProduct.install("kill");
  }

  @AfterAll
  void removeIt() {
    if (fault != null) {
      fault.close();
    }
  }

  @Test
  void afterASigkillMidRolloutEveryNodeConvergesAndNoNetworkIsLost() throws Exception {
    ProductProcess operator = fault.startOperator(ProcessOptions.DEFAULT);
    List<SandboxNode> nodes = new ArrayList<>();
    for (String base : List.of("killa", "killb", "killc")) {
      nodes.add(fault.product().startAgent(fault.createNode(base)));
    }
    String edited = TestNames.unique("edit");
    String other = TestNames.unique("keep");
    fault.apply(fault.bridgeNetwork(edited, 1400, 60));
    fault.apply(fault.bridgeNetwork(other, 1400, 60));
    fault.waitReady(edited);
    fault.waitReady(other);

    List<String> names = nodes.stream().map(SandboxNode::name).toList();
    List<java.nio.file.Path> files = new ArrayList<>();
    for (SandboxNode n : nodes) {
      files.add(n.confDir().resolve("50-" + edited + ".conflist"));
      files.add(n.confDir().resolve("50-" + other + ".conflist"));
    }
    AtomicLong specsWithoutANetwork = new AtomicLong();
    AtomicLong specReads = new AtomicLong();
    ScheduledExecutorService specWatch = Executors.newSingleThreadScheduledExecutor();
    ConflistSampler.Figures figures;
    long newAtKill;
    try (ConflistSampler sampler = ConflistSampler.start(files)) {
      specWatch.scheduleWithFixedDelay(
          () ->
              names.forEach(
                  n -> {
                    specReads.incrementAndGet();
                    if (!networksOf(n).containsAll(List.of(edited, other))) {
                      specsWithoutANetwork.incrementAndGet();
                    }
                  }),
          0,
          20,
          TimeUnit.MILLISECONDS);

      fault.apply(fault.bridgeNetwork(edited, 1300, 60));
      newAtKill =
          await()
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(5))
              .until(() -> nodesWithNewSpec(names, edited), c -> c > 0);
      operator.kill();
      System.out.printf(
          "fault=operator-sigkill cninodes-on-new-revision-at-kill=%d/%d%n",
          newAtKill, names.size());

      operator.start();
      await()
          .atMost(FaultProduct.WAIT)
          .untilAsserted(
              () -> {
                for (SandboxNode n : nodes) {
                  assertThat(n.conflist("50-" + edited + ".conflist").orElseThrow())
                      .as(n.name())
                      .contains("1300");
                }
              });
      fault.waitReady(edited);
      fault.waitReady(other);
      figures = sampler.stop();
    } finally {
      specWatch.shutdownNow();
    }

    System.out.printf(
        "fault=operator-sigkill %s cninode-reads=%d cninodes-missing-a-network=%d lost=%s%n",
        figures,
        specReads.get(),
        specsWithoutANetwork.get(),
        figures.lost() + specsWithoutANetwork.get() == 0 ? "nothing" : "see figures");
    assertThat(figures.firstInvalid()).isEmpty();
    assertThat(figures.lost()).as("conflist reads that found no file or a broken one").isZero();
    assertThat(specsWithoutANetwork.get()).as("CniNode specs missing a network").isZero();
  }

  private long nodesWithNewSpec(List<String> nodes, String network) {
    return nodes.stream()
        .filter(
            n ->
                spec(n, network)
                    .map(NodeNetwork::getContent)
                    .filter(c -> c.contains("1300"))
                    .isPresent())
        .count();
  }

  private List<String> networksOf(String node) {
    return fault
        .cniNode(node)
        .map(CniNode::getSpec)
        .map(s -> s.getNetworks() == null ? List.<String>of() : names(s.getNetworks()))
        .orElse(List.of());
  }

  private Optional<NodeNetwork> spec(String node, String network) {
    return fault
        .cniNode(node)
        .map(CniNode::getSpec)
        .flatMap(
            s ->
                s.getNetworks() == null
                    ? Optional.empty()
                    : s.getNetworks().stream()
                        .filter(n -> network.equals(n.getName()))
                        .findFirst());
  }

  private static List<String> names(List<NodeNetwork> networks) {
    return networks.stream().map(NodeNetwork::getName).toList();
  }
}
