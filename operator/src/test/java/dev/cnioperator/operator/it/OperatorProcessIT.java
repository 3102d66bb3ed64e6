package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.operator.OperatorSettings;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged operator (java -jar target/cni-operator.jar) as two replicas with leader election,
 * each running with a ServiceAccount token bound to the least RBAC in rbac/operator-rbac.yaml: one
 * leads and reconciles, the other takes over when the leader dies; both serve their endpoints.
 */
class OperatorProcessIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private ClusterFixture cluster;
  private String namespace;
  private final List<Replica> replicas = new ArrayList<>();

  /** Where the kubeconfigs (they hold tokens) go; JUnit removes it. */
  @TempDir Path work;

  /**
   * One operator process. It binds its metrics port itself (port 0) and logs the port it got: a
   * port found free here and passed on could be taken by any connection before the process binds
   * it.
   */
  private record Replica(String identity, Process process, Path log) {
    private static final Pattern PORT = Pattern.compile("event=started .*metricsPort=(\\d+)");

    /** The metrics port from the log; IOException until the process has logged it. */
    int port() throws IOException {
      Matcher m = PORT.matcher(Files.readString(log));
      if (!m.find()) {
        throw new IOException(identity + " has not logged its metrics port yet");
      }
      return Integer.parseInt(m.group(1));
    }
  }

  @BeforeEach
  void setUp() throws IOException {
    // The in-JVM operator must not compete with the processes under test.
    TestOperator.shared().stop();
    cluster = new ClusterFixture();
    namespace = TestNames.unique("op");
    cluster
        .client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    String rbac;
    try (InputStream in = getClass().getResourceAsStream("/rbac/operator-rbac.yaml")) {
      rbac = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("NAMESPACE", namespace);
    }
    cluster.controlPlane.kubectlWithInput(rbac, "apply", "-f", "-").orThrow("apply RBAC");
  }

  @AfterEach
  void tearDown() {
    for (Replica r : replicas) {
      r.process().destroyForcibly();
    }
    TestOperator.shared().start();
    cluster.close();
    cluster.controlPlane.kubectl(
        "delete",
        "clusterrole,clusterrolebinding",
        namespace + "-cni-operator",
        "--ignore-not-found");
    cluster.controlPlane.kubectl(
        "delete",
        "-n",
        "default",
        "role,rolebinding",
        namespace + "-cni-operator-events",
        "--ignore-not-found");
    cluster.controlPlane.client().namespaces().withName(namespace).delete();
  }

  @Test
  void oneReplicaLeadsAndTheOtherTakesOverWhenItDies() throws Exception {
    Path jar = packagedJar();
    Path kubeconfig = leastRbacKubeconfig();
    Replica first = start(jar, kubeconfig, "replica-a");
    Replica second = start(jar, kubeconfig, "replica-b");

    await("both replicas live")
        .atMost(ClusterFixture.WAIT)
        .until(() -> status(first, "/healthz") == 200 && status(second, "/healthz") == 200);
    await("a leader").atMost(ClusterFixture.WAIT).until(() -> leader() != null);
    Replica leader = leader().equals(first.identity()) ? first : second;
    Replica standby = leader == first ? second : first;

    String node = cluster.node("proc");
    String one = "proc-one-" + cluster.pool;
    cluster.apply(one, cluster.bridgeSpec("ct-proc0", "10.200.12.0/24")).orThrow("apply");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(node).contains(one));
    cluster.awaitCondition(one, "Accepted", "True");
    cluster.agentReportsApplied(node);
    cluster.awaitCondition(one, "RolledOut", "True");
    String series = "{network=\"" + one + "\"}";
    await("the leader's metrics of " + one)
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                body(leader, "/metrics").contains("cni_operator_network_ready" + series + " 1.0"));
    String scrape = scrape(leader);
    assertThat(scrape)
        .contains("cni_operator_leader 1.0")
        .contains("cni_operator_network_accepted" + series + " 1.0")
        .contains("cni_operator_network_degraded" + series + " 0.0")
        .contains("cni_operator_network_nodes_selected" + series + " 1.0")
        .contains("cni_operator_network_nodes_applied" + series + " 1.0")
        .contains("cni_operator_rollouts_total{network=\"" + one + "\",outcome=\"completed\"} 1.0")
        .containsPattern("cni_operator_cninode_writes_total [1-9]")
        .containsPattern("cni_operator_status_writes_total [1-9]")
        // JOSDK's reconciles, their errors and durations, per controller.
        .containsPattern("operator_sdk_reconciliations_started_total\\{[^}]*kind=\"CniNetwork\"")
        .contains("operator_sdk_controllers_execution_reconcile_seconds_count{")
        .contains("controller=\"cninetwork\"")
        .contains("controller=\"node\"")
        // Micrometer's JVM and process meters.
        .contains("jvm_memory_used_bytes{")
        .contains("jvm_gc_")
        .contains("jvm_threads_live_threads")
        .contains("jvm_classes_loaded_classes")
        .contains("process_cpu_usage")
        .contains("process_files_open_files")
        .contains("process_uptime_seconds")
        .contains("process_cpu_seconds_total")
        .doesNotContain("_total_total");
    // The standby reconciles nothing: it says so, and has no series of any network.
    assertThat(scrape(standby)).contains("cni_operator_leader 0.0").doesNotContain("network=\"");
    assertThat(body(leader, "/healthz")).isEqualTo("ok\n");
    assertThat(status(standby, "/healthz")).isEqualTo(200);
    assertThat(status(leader, "/readyz")).isEqualTo(200);
    // A standby must be ready too, or a rolling update would wait forever for the new pod.
    assertThat(status(standby, "/readyz")).isEqualTo(200);
    aDeletedNetworksSeriesGo(leader, node);

    leader.process().destroyForcibly().waitFor();

    await("the standby takes the lease")
        .atMost(Duration.ofSeconds(90))
        .until(() -> standby.identity().equals(leader()));
    String two = "proc-two-" + cluster.pool;
    // Published to the scheduler: the new leader keeps its DeviceClass under the same least RBAC.
    cluster
        .apply(
            two,
            "  priority: 20\n  scheduling: {publishDevices: true}\n"
                + cluster.bridgeSpec("ct-proc1", "10.200.13.0/24"))
        .orThrow("apply");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.networksOn(node).containsAll(List.of(two, one)));
    await("the DeviceClass of " + two)
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                cluster
                        .client
                        .dynamicResourceAllocation()
                        .v1()
                        .deviceClasses()
                        .withName(two + ".networks.cnioperator.dev")
                        .get()
                    != null);
    assertThat(Files.readString(standby.log())).contains("event=started");
    keepsTheDefinitionsOfAMultusNetwork(node);
    // The least RBAC is enough for everything, Events included, and every meter registers.
    for (Replica r : List.of(leader, standby)) {
      assertThat(Files.readString(r.log()))
          .as("log of " + r.identity())
          .doesNotContainIgnoringCase("forbidden")
          .doesNotContain("event=event-not-recorded")
          .doesNotContain("registration has failed");
    }
  }

  /** A network deleted (its agent reporting its file removed) leaves no series behind. */
  private void aDeletedNetworksSeriesGo(Replica leader, String node) throws Exception {
    String gone = "proc-gone-" + cluster.pool;
    cluster.apply(gone, cluster.bridgeSpec("ct-procg", "10.200.14.0/24")).orThrow("apply");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(node).contains(gone));
    cluster.agentReportsApplied(node);
    String series = "network=\"" + gone + "\"";
    await("series of " + gone)
        .atMost(ClusterFixture.WAIT)
        .until(() -> body(leader, "/metrics").contains("cni_operator_rollouts_total{" + series));

    cluster.client.resources(CniNetwork.class).withName(gone).delete();
    await().atMost(ClusterFixture.WAIT).until(() -> !cluster.networksOn(node).contains(gone));
    cluster.agentReportsRemoved(node, gone);
    await("deletion of " + gone)
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.network(gone) == null);

    assertThat(scrape(leader)).doesNotContain(series).contains("network=\"proc-one-");
  }

  /** With the NetworkAttachmentDefinition CRD installed, a Multus network gets its definition. */
  private void keepsTheDefinitionsOfAMultusNetwork(String node) {
    AttachmentDefinitionCrd crd = AttachmentDefinitionCrd.install(cluster.controlPlane);
    try {
      String secondary = "proc-sec-" + cluster.pool;
      cluster
          .apply(
              secondary,
              cluster.bridgeSpec("ct-proc2", "10.200.50.0/24")
                  + "  attachment: {multus: {namespaces: ["
                  + namespace
                  + "]}}\n")
          .orThrow("apply");
      await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(node).contains(secondary));
      cluster.awaitCondition(secondary, "AttachmentDefinitions", "True");
      assertThat(AttachmentDefinitionCrd.named(cluster.client, secondary))
          .containsExactly(namespace + "/" + secondary);
    } finally {
      crd.close();
    }
  }

  /**
   * SIGTERM (a pod deletion, a rolling update): the leader releases the Lease before its process
   * exits, so a standby leads at once instead of after the lease duration.
   */
  @Test
  void aLeaderStoppedWithSigtermReleasesTheLeaseBeforeItExits() throws Exception {
    Replica only = start(packagedJar(), leastRbacKubeconfig(), "replica-term");
    await("it leads").atMost(ClusterFixture.WAIT).until(() -> only.identity().equals(leader()));

    only.process().destroy();
    assertThat(only.process().waitFor(30, TimeUnit.SECONDS)).as("exited on SIGTERM").isTrue();

    assertThat(leader())
        .as("the Lease's holder once the leader has exited")
        .isNotEqualTo(only.identity());
    assertThat(Files.readString(only.log()))
        .contains("event=lease-released")
        .contains("event=stopped");
  }

  private static Path packagedJar() {
    Path jar = ToolPaths.repoRoot().resolve("operator/target/cni-operator.jar");
    Prerequisites.require(
        Files.isRegularFile(jar),
        "operator/target/cni-operator.jar",
        "./mvnw -pl operator -am package -DskipTests");
    return jar;
  }

  /** A kubeconfig with a token of the least-RBAC ServiceAccount. */
  private Path leastRbacKubeconfig() throws IOException {
    String token =
        cluster.controlPlane.serviceAccountToken(namespace, "cni-operator", Duration.ofHours(1));
    return cluster.controlPlane.writeKubeconfigForToken(token, work.resolve("operator.kubeconfig"));
  }

  private Replica start(Path jar, Path kubeconfig, String identity) throws IOException {
    // Kept after the run for reading a failure; the build's clean removes it.
    Path log =
        Files.createDirectories(Path.of("target/it-logs/operator-process").toAbsolutePath())
            .resolve(namespace + "-" + identity + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString(),
                "--kubeconfig=" + kubeconfig,
                "--identity=" + identity,
                "--finalizer-timeout=20s")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment()
        .putAll(Map.of("CNI_OPERATOR_NAMESPACE", namespace, "CNI_OPERATOR_METRICS_PORT", "0"));
    Replica r = new Replica(identity, pb.start(), log);
    replicas.add(r);
    return r;
  }

  private String leader() {
    Lease lease =
        cluster.client.leases().inNamespace(namespace).withName(OperatorSettings.LEASE_NAME).get();
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }

  private static int status(Replica r, String path) {
    try {
      return HTTP.send(request(r, path), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The replica's /metrics, also kept beside its log for reading a failure. */
  private static String scrape(Replica r) throws IOException, InterruptedException {
    String text = body(r, "/metrics");
    Files.writeString(Path.of(r.log() + ".metrics"), text);
    return text;
  }

  private static String body(Replica r, String path) throws IOException, InterruptedException {
    return HTTP.send(request(r, path), HttpResponse.BodyHandlers.ofString()).body();
  }

  private static HttpRequest request(Replica r, String path) throws IOException {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + r.port() + path))
        .timeout(Duration.ofSeconds(5))
        .build();
  }
}
