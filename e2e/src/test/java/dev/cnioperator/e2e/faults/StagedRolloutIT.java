package dev.cnioperator.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.agent.probe.ProbeNamespaces;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.HostLocalStore;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Staged rollout with real agents, real plugins and real network namespaces: a valid but broken
 * edit (a bridge MTU no interface accepts) fails the canary's probe and is rolled back while the
 * other nodes are never touched; a good edit goes out one batch at a time; an agent SIGKILLed in
 * the middle of its probe's ADD leaves nothing behind once it runs again, and the rollout finishes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StagedRolloutIT {
  private FaultProduct fault;

  @RegisterExtension final FaultDiagnosis diagnosis = new FaultDiagnosis(() -> fault);
  private final List<Path> orphanPids = new ArrayList<>();

  @BeforeAll
  void installTheProduct() {
    fault = FaultProduct.install("roll");
    fault.startOperator(ProcessOptions.DEFAULT);
  }

  @AfterAll
  void removeIt() throws IOException {
    if (fault != null) {
      fault.close();
    }
    for (Path pids : orphanPids) {
      if (Files.exists(pids)) {
        for (String pid : Files.readAllLines(pids)) {
          // Only if the pid is still the plugin's sleep, not a process that reused it.
          ProcessHandle.of(Long.parseLong(pid.strip()))
              .filter(p -> p.info().commandLine().orElse("").contains("sleep"))
              .ifPresent(ProcessHandle::destroyForcibly);
        }
      }
    }
  }

  @Test
  void aBrokenEditIsRolledBackFromTheCanaryAndTheOtherNodesAreNeverTouched() throws Exception {
    List<SandboxNode> nodes = new ArrayList<>();
    for (String base : List.of("rba", "rbb", "rbc")) {
      nodes.add(fault.product().startAgent(fault.createNode(base)));
    }
    String name = TestNames.unique("rb");
    String file = "50-" + name + ".conflist";
    fault.apply(onNodes(fault.bridgeNetwork(name, 1400, 60), nodes));
    fault.waitRolledOut(name);
    String stable = fault.renderedSha(name);
    Map<String, String> before = new LinkedHashMap<>();
    Map<String, Long> generations = new LinkedHashMap<>();
    for (SandboxNode n : nodes) {
      before.put(n.name(), n.conflist(file).orElseThrow());
      generations.put(n.name(), generation(n.name()));
    }

    List<List<String>> batches = new CopyOnWriteArrayList<>();
    try (Watch watch = watchBatches(name, batches)) {
      fault.apply(onNodes(fault.bridgeNetwork(name, 70000, 60), nodes));
      RolloutStatus rolledBack =
          await()
              .atMost(FaultProduct.WAIT)
              .until(
                  () -> rollout(name), r -> r != null && r.getPhase() == RolloutPhase.RolledBack);

      String canary = rolledBack.getFailure().getNode();
      CommandResult wide = fault.controlPlane().kubectl("get", "cninetwork", name, "-o", "wide");
      CommandResult described = fault.controlPlane().kubectl("describe", "cninetwork", name);
      System.out.printf(
          "rollout=rolled-back canary=%s%n$ kubectl get cninetwork %s -o wide%n%s%n"
              + "$ kubectl describe cninetwork %s%n%s%n",
          canary, name, wide.stdout(), name, described.stdout());
      assertThat(batches).as("only the canary was ever admitted").containsExactly(List.of(canary));
      assertThat(rolledBack.getFailure().getReason()).isEqualTo("ProbeFailed");
      assertThat(rolledBack.getFailure().getMessage()).startsWith("ADD: ");
      assertThat(rolledBack.getStableRevision()).isEqualTo(stable);
      assertThat(rolledOut(name).getReason()).isEqualTo("RolledBack");
      assertThat(rolledOut(name).getMessage())
          .contains("node " + canary)
          .contains(rolledBack.getFailure().getMessage());
      assertThat(wide.stdout()).contains("RolledBack");
      assertThat(warnings(name)).anyMatch(e -> "RolledBack".equals(e.getReason()));

      // The canary gets the stable revision back, byte for byte; the network is Ready again.
      SandboxNode canaryNode =
          nodes.stream().filter(n -> n.name().equals(canary)).findFirst().orElseThrow();
      await()
          .atMost(FaultProduct.WAIT)
          .untilAsserted(() -> assertThat(canaryNode.conflist(file)).contains(before.get(canary)));
      fault.waitReady(name);
      for (SandboxNode n : nodes) {
        if (!n.name().equals(canary)) {
          assertThat(n.conflist(file)).as(n.name()).contains(before.get(n.name()));
          assertThat(generation(n.name()))
              .as("the CniNode of %s was never written", n.name())
              .isEqualTo(generations.get(n.name()));
        }
      }
      assertNoProbeLeftovers(nodes, name);

      // A good edit after the rollback starts a new rollout: one node at a time (25% of 3).
      batches.clear();
      fault.apply(onNodes(fault.bridgeNetwork(name, 1300, 60), nodes));
      fault.waitRolledOut(name);
      for (SandboxNode n : nodes) {
        assertThat(n.conflist(file).orElseThrow()).as(n.name()).contains("1300");
      }
      System.out.printf("rollout=good-edit batches=%s%n", batches);
      assertThat(batches).hasSize(3).allSatisfy(b -> assertThat(b).hasSize(1));
      assertThat(batches.stream().flatMap(List::stream).distinct())
          .containsExactlyInAnyOrderElementsOf(nodes.stream().map(SandboxNode::name).toList());
      assertNoProbeLeftovers(nodes, name);
    }
  }

  @Test
  void anAgentKilledInTheMiddleOfItsProbeLeavesNothingOnceItRunsAgain() throws Exception {
    List<String> names = List.of(fault.createNode("kpa"), fault.createNode("kpb"));
    Path marker = fault.work().resolve("slow-" + names.get(0));
    Path started = fault.work().resolve("started-" + names.get(0));
    Path pids = fault.work().resolve("pids-" + names.get(0));
    orphanPids.add(pids);
    List<SandboxNode> nodes = new ArrayList<>();
    for (String n : names) {
      Path binDir = Files.createDirectories(fault.work().resolve("nodes/" + n + "/opt/cni/bin"));
      Path plugin = binDir.resolve("slowbridge");
      Files.writeString(plugin, slowBridge(marker, started, pids));
      Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwxr-xr-x"));
      nodes.add(fault.product().startAgent(n));
    }
    String name = TestNames.unique("kp");
    String bridgeNet =
        onNodes(fault.bridgeNetwork(name, 1400, 60), nodes)
            .replace("type: bridge", "type: slowbridge");
    fault.apply(bridgeNet);
    fault.waitRolledOut(name);

    // The next probe's ADD stops right after the bridge plugin's (veth made, address reserved).
    Files.writeString(marker, "");
    fault.apply(bridgeNet.replace("mtu: 1400", "mtu: 1300"));
    await().atMost(FaultProduct.WAIT).until(() -> Files.exists(started));
    String probeId = Files.readString(started).strip();
    SandboxNode probing =
        nodes.stream()
            .filter(n -> ProbeIdentity.forNode(n.name()).isOwn(probeId))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no node's probe: " + probeId));
    probing.agent().kill();
    Files.delete(marker);

    List<String> namespacesAtKill =
        new ProbeNamespaces().owned(ProbeIdentity.forNode(probing.name()));
    List<String> reservedAtKill = probeReservations(name);
    System.out.printf(
        "fault=agent-sigkill-mid-probe node=%s probe=%s at-kill: namespaces=%s reservations=%s%n",
        probing.name(), probeId, namespacesAtKill, reservedAtKill);
    assertThat(namespacesAtKill).as("killed with its probe namespace made").contains(probeId);
    assertThat(reservedAtKill).as("killed with its probe address reserved").isNotEmpty();

    probing.agent().start();
    fault.waitRolledOut(name);
    for (SandboxNode n : nodes) {
      assertThat(n.conflist("50-" + name + ".conflist").orElseThrow()).contains("1300");
    }
    assertNoProbeLeftovers(nodes, name);
  }

  /**
   * The reference bridge plugin (from where the agent installs it from, since a network of only
   * this plugin does not make the agent install bridge), but an ADD that finds {@code marker}
   * writes its container id to {@code started} and then sleeps before it answers: the agent can be
   * killed with the ADD half done.
   */
  private static String slowBridge(Path marker, Path started, Path pids) {
    return """
        #!/bin/sh
        out=$(%4$s)
        rc=$?
        if [ "$CNI_COMMAND" = ADD ] && [ -e %1$s ]; then
          echo "$CNI_CONTAINERID" > %2$s.tmp && mv %2$s.tmp %2$s
          sleep 20 &
          echo $! >> %3$s
          wait $!
        fi
        printf '%%s' "$out"
        exit $rc
        """
        .formatted(marker, started, pids, ToolPaths.pluginDir().resolve("bridge"));
  }

  /** The network {@code yaml} with its node selector narrowed to {@code nodes}' hostnames. */
  private String onNodes(String yaml, List<SandboxNode> nodes) {
    String names = String.join(", ", nodes.stream().map(SandboxNode::name).toList());
    String narrowed =
        yaml.replace(
            fault.selector(),
            "matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: ["
                + names
                + "]}]");
    assertThat(narrowed).isNotEqualTo(yaml);
    return narrowed;
  }

  /**
   * Nothing of a probe outlives it. Awaited: after a rollback the canary proves the stable revision
   * it got back, and that probe may be under way (seen in a fresh-clone run at load 20).
   */
  private void assertNoProbeLeftovers(List<SandboxNode> nodes, String network) {
    await()
        .atMost(FaultProduct.WAIT)
        .untilAsserted(() -> assertNoProbeLeftoversNow(nodes, network));
  }

  private void assertNoProbeLeftoversNow(List<SandboxNode> nodes, String network)
      throws IOException {
    for (SandboxNode n : nodes) {
      assertThat(new ProbeNamespaces().owned(ProbeIdentity.forNode(n.name())))
          .as("probe namespaces of %s", n.name())
          .isEmpty();
      assertThat(new ResultCache(n.cacheDir()).list(network))
          .as("cache entries of %s", n.name())
          .allSatisfy(a -> assertThat(ProbeIdentity.isProbe(a.containerId())).isFalse());
    }
    assertThat(probeReservations(network)).as("probe reservations").isEmpty();
    CommandResult ports =
        Commands.run("ip", "-o", "link", "show", "master", fault.bridgeOf(network));
    assertThat(ports.stdout()).as("ports left on the network's bridge").isBlank();
  }

  /** Addresses host-local holds for any probe container id in the run's shared store. */
  private List<String> probeReservations(String network) {
    return HostLocalStore.reservedBy(fault.work().resolve("ipam").resolve(network))
        .entrySet()
        .stream()
        .filter(e -> ProbeIdentity.isProbe(e.getValue()))
        .map(Map.Entry::getKey)
        .toList();
  }

  private RolloutStatus rollout(String network) {
    CniNetwork n = fault.network(network);
    return n == null || n.getStatus() == null ? null : n.getStatus().getRollout();
  }

  private io.fabric8.kubernetes.api.model.Condition rolledOut(String network) {
    return fault.network(network).getStatus().getConditions().stream()
        .filter(c -> "RolledOut".equals(c.getType()))
        .findFirst()
        .orElseThrow();
  }

  private long generation(String node) {
    return fault.cniNode(node).map(CniNode::getMetadata).orElseThrow().getGeneration();
  }

  private List<Event> warnings(String network) {
    return fault.controlPlane().client().v1().events().inAnyNamespace().list().getItems().stream()
        .filter(e -> network.equals(e.getInvolvedObject().getName()))
        .filter(e -> "Warning".equals(e.getType()))
        .toList();
  }

  /** Records every distinct non-empty status.rollout.batch of the network, in order. */
  private Watch watchBatches(String network, List<List<String>> batches) {
    return fault
        .controlPlane()
        .client()
        .resources(CniNetwork.class)
        .withName(network)
        .watch(
            new Watcher<>() {
              @Override
              public void eventReceived(Action action, CniNetwork n) {
                List<String> batch =
                    n.getStatus() == null || n.getStatus().getRollout() == null
                        ? null
                        : n.getStatus().getRollout().getBatch();
                if (batch != null
                    && !batch.isEmpty()
                    && (batches.isEmpty() || !batches.get(batches.size() - 1).equals(batch))) {
                  batches.add(List.copyOf(batch));
                }
              }

              @Override
              public void onClose(WatcherException cause) {}
            });
  }
}
