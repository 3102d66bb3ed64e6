package dev.cnioperator.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.ProductProcess;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.TestNames;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator is SIGKILLed while it rolls an edit out to three nodes, as soon as a watch sees the
 * first CniNode carry the new revision (the figures say how far the rollout had got). After a
 * restart every node must reach the new revision, and no CniNode and no node's conf dir may ever
 * have lost a network, neither the edited one nor another one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorKilledIT {
  private FaultProduct fault;

  @RegisterExtension final FaultDiagnosis diagnosis = new FaultDiagnosis(() -> fault);

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

      // Killed from the watch event of the first CniNode carrying the edit, the earliest a
      // client can know the rollout has begun.
      CountDownLatch firstNodeSpec = new CountDownLatch(1);
      try (Watch watch =
          fault
              .controlPlane()
              .client()
              .resources(CniNode.class)
              .watch(onNewRevision(names, edited, firstNodeSpec))) {
        fault.apply(fault.bridgeNetwork(edited, 1300, 60));
        assertThat(firstNodeSpec.await(30, TimeUnit.SECONDS)).as("a CniNode got the edit").isTrue();
        operator.kill();
      }
      long specsAtKill = nodesWithNewSpec(names, edited);
      long filesAtKill =
          nodes.stream()
              .filter(n -> n.conflist("50-" + edited + ".conflist").orElse("").contains("1300"))
              .count();
      System.out.printf(
          "fault=operator-sigkill at-kill: cninodes-with-edit=%d/%d nodes-with-edit-on-disk=%d/%d%n",
          specsAtKill, names.size(), filesAtKill, names.size());

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
      // The restarted operator finishes the staged rollout the killed one had begun.
      fault.waitRolledOut(edited);
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

  private static Watcher<CniNode> onNewRevision(
      List<String> nodes, String network, CountDownLatch latch) {
    return new Watcher<>() {
      @Override
      public void eventReceived(Action action, CniNode node) {
        boolean ours = nodes.contains(node.getMetadata().getName());
        if (ours && node.getSpec() != null && node.getSpec().getNetworks() != null) {
          node.getSpec().getNetworks().stream()
              .filter(n -> network.equals(n.getName()) && n.getContent().contains("1300"))
              .findFirst()
              .ifPresent(n -> latch.countDown());
        }
      }

      @Override
      public void onClose(WatcherException cause) {}
    };
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
