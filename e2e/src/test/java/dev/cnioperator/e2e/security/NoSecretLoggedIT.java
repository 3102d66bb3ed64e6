package dev.cnioperator.e2e.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.e2e.PodAttachments;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.ProductProcess;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.e2e.faults.FaultProduct;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The operator and an agent run at debug level with their ServiceAccount tokens through a whole
 * cycle (apply, Ready, a real attachment CHECKed, an edit, delete); neither log may contain a token
 * or any of its three JWT segments.
 */
class NoSecretLoggedIT {
  private static final String DEBUG = "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug";

  @Test
  void noTokenNorAnyOfItsSegmentsIsLoggedAtDebugLevel() throws Exception {
    try (FaultProduct fault = FaultProduct.install("sec")) {
      ProcessOptions debug = ProcessOptions.DEFAULT.withJvmOptions(DEBUG);
      ProductProcess operator = fault.startOperator(debug);
      SandboxNode node = fault.product().startAgent(fault.createNode("sec"), null, debug);
      String network = TestNames.unique("sec");
      String file = "50-" + network + ".conflist";
      fault.apply(fault.bridgeNetwork(network, 1400, 5));
      fault.waitReady(network);

      String podNamespace = fault.createNamespace("secpods");
      try (PodAttachments pods =
          new PodAttachments(fault.controlPlane().client(), node, podNamespace)) {
        pods.addWithLibrary(network + "-p", file);
        await()
            .atMost(FaultProduct.WAIT)
            .until(
                () -> fault.nodeStatus(node.name(), network).map(NodeNetworkStatus::getAttachments),
                a -> a.isPresent() && a.get().getHealthy() != null && a.get().getHealthy() == 1);
        fault.apply(fault.bridgeNetwork(network, 1300, 5));
        await()
            .atMost(FaultProduct.WAIT)
            .until(() -> node.conflist(file).orElse("").contains("1300"));
      }
      fault
          .controlPlane()
          .kubectl("delete", "cninetwork", network, "--timeout=60s")
          .orThrow("delete " + network);

      Map<String, String> logs = new LinkedHashMap<>();
      logs.put("operator", operator.output());
      logs.put("agent", node.agent().output());
      Map<String, String> tokens = new LinkedHashMap<>();
      tokens.put("operator", tokenIn(fault.work().resolve("operator/fault-operator.kubeconfig")));
      tokens.put("agent", tokenIn(node.root().resolve("agent.kubeconfig")));

      List<String> found = new ArrayList<>();
      for (var token : tokens.entrySet()) {
        String[] segments = token.getValue().split("\\.");
        assertThat(segments).as("a JWT has three segments").hasSize(3);
        for (var log : logs.entrySet()) {
          if (log.getValue().contains(token.getValue())) {
            found.add(token.getKey() + " token in " + log.getKey() + " log");
          }
          for (int i = 0; i < segments.length; i++) {
            if (log.getValue().contains(segments[i])) {
              found.add(token.getKey() + " token segment " + i + " in " + log.getKey() + " log");
            }
          }
        }
      }
      for (var log : logs.entrySet()) {
        long debugLines = log.getValue().lines().filter(l -> l.contains(" DEBUG ")).count();
        System.out.printf(
            "security=no-secret-logged log=%s bytes=%d debug-lines=%d%n",
            log.getKey(), log.getValue().length(), debugLines);
        assertThat(debugLines).as("%s logged at debug level", log.getKey()).isPositive();
      }
      System.out.printf(
          "security=no-secret-logged tokens=%d segments-checked=%d found=%d%n",
          tokens.size(), tokens.size() * 3, found.size());
      assertThat(found).isEmpty();
    }
  }

  /** The bearer token of a kubeconfig LocalProduct wrote. */
  private static String tokenIn(Path kubeconfig) {
    String token = LocalControlPlane.readKubeconfig(kubeconfig).getAutoOAuthToken();
    if (token == null || token.isEmpty()) {
      throw new IllegalStateException("no token in " + kubeconfig);
    }
    return token;
  }
}
