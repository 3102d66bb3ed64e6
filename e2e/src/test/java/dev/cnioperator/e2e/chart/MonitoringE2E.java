package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.FreePorts;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A real Prometheus scrapes the product on a one-node kubelet cluster, and real faults fire the
 * chart's alerts. The chart is installed with its PodMonitors and PrometheusRule on (the Prometheus
 * Operator's CRDs applied first, so the API server holds them); no Prometheus Operator runs, so the
 * test derives a static scrape configuration from the PodMonitors the release holds: per PodMonitor
 * a job of the same name whose targets are the pods its selector matches, at the IP and the port of
 * the named container port, each with the {@code __meta_kubernetes_*} labels the Prometheus
 * Operator's discovery would give, and the PodMonitor's own relabelings (which set {@code job},
 * {@code node} and {@code pod}). The rules are the PrometheusRule's groups. Prometheus runs on the
 * host, which is on the nodes' bridge, listening on loopback.
 *
 * <p>The alerts' durations are shortened through the chart's {@code
 * monitoring.prometheusRule.alerts} values (a few seconds' {@code for}, a one-minute window), so
 * each fault is seen firing and then resolving after its repair: a macvlan master that is missing
 * (CniNetworkNotReady), a pod whose interface is flushed (CniAgentAttachmentsFailing, until the pod
 * is deleted), a broken edit rolled back (CniNetworkRolloutStopped, until its window passes), the
 * agent stopped by a nodeSelector no node matches (CniAgentDown) and the operator scaled to zero
 * (CniOperatorDown). The agent and the operator run on the host network, so the static targets stay
 * the same across their restarts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MonitoringE2E {
  private static final Duration SETTLE = Duration.ofSeconds(120);
  private static final Duration INSTALL_WAIT = Duration.ofMinutes(4);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final String NETWORK = "watched";

  private KubeletCluster cluster;
  private LocalControlPlane cp;
  private KubeletNode node;
  private ChartRelease release;
  private MonitoringObjects monitoring;
  private Path dir;
  private Process prometheus;
  private URI prometheusUrl;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void startClusterAndPrometheus() throws IOException {
    dir = Files.createTempDirectory("monitoring-e2e");
    cluster = KubeletCluster.start(1);
    cp = cluster.controlPlane();
    node = cluster.nodes().get(0);
    for (Path crd : ToolPaths.prometheusOperatorCrds()) {
      cp.kubectl("apply", "--server-side", "--force-conflicts", "-f", crd.toString())
          .orThrow("kubectl apply " + crd.getFileName());
    }
    cp.kubectl(
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/podmonitors.monitoring.coreos.com",
            "crd/prometheusrules.monitoring.coreos.com")
        .orThrow("wait for the Prometheus Operator's CRDs");
    PublishedProduct product = PublishedProduct.publish(cluster, Helm.provisioned());
    release =
        ChartRelease.installAndWait(
            cp,
            product,
            "mon",
            INSTALL_WAIT,
            ChartRelease.onNodes(
                cluster,
                "--set",
                "monitoring.podMonitor.enabled=true",
                "--set",
                "monitoring.prometheusRule.enabled=true",
                "--set",
                "monitoring.prometheusRule.alerts.CniNetworkNotReady.for=5s",
                "--set",
                "monitoring.prometheusRule.alerts.CniNetworkNodesNotCurrent.for=5s",
                "--set",
                "monitoring.prometheusRule.alerts.CniAgentAttachmentsFailing.for=5s",
                "--set",
                "monitoring.prometheusRule.alerts.CniNetworkRolloutStopped.window=1m",
                "--set",
                "monitoring.prometheusRule.alerts.CniAgentDown.for=10s",
                "--set",
                "monitoring.prometheusRule.alerts.CniOperatorDown.for=10s"));
    monitoring = new MonitoringObjects(release.manifest());
    startPrometheus();
  }

  @AfterAll
  void stopEverything() throws IOException {
    try {
      if (prometheus != null) {
        prometheus.destroy();
        try {
          if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
            prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          prometheus.destroyForcibly();
        }
      }
      if (release != null) {
        release.close();
      }
    } finally {
      try {
        if (cluster != null) {
          cluster.close();
        }
      } finally {
        if (dir != null) {
          try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
              Files.deleteIfExists(p);
            }
          }
        }
      }
    }
  }

  @Test
  @Order(0)
  void onAHealthyProductEveryJobIsUpAndTheRulesSeriesExistWithNoAlertFiring() {
    apply(bridgeNetwork(""));
    awaitReady(NETWORK);
    for (JsonNode podMonitor : monitoring.podMonitors()) {
      String job = jobOf(podMonitor);
      await("up{job=" + job + "} == 1 for each pod, labelled with pod and node")
          .atMost(SETTLE)
          .untilAsserted(
              () -> {
                JsonNode result = query("up{job=\"" + job + "\"}");
                assertThat(result).as("up{job=%s}", job).isNotEmpty();
                for (JsonNode series : result) {
                  assertThat(series.at("/value/1").asText()).as("up %s", series).isEqualTo("1");
                  assertThat(series.at("/metric/node").asText()).isEqualTo(node.name());
                  assertThat(series.at("/metric/pod").asText()).isNotBlank();
                  assertThat(series.at("/metric/namespace").asText())
                      .isEqualTo(release.namespace());
                }
              });
    }
    String operatorJob = operatorJob();
    for (String metric :
        List.of(
            "cni_operator_leader",
            "cni_operator_network_accepted",
            "cni_operator_network_ready",
            "cni_operator_network_degraded",
            "cni_operator_network_nodes_selected",
            "cni_operator_network_nodes_applied")) {
      await(metric + " of network " + NETWORK)
          .atMost(SETTLE)
          .untilAsserted(
              () ->
                  assertThat(
                          query(
                              metric.equals("cni_operator_leader")
                                  ? metric + "{job=\"" + operatorJob + "\"}"
                                  : metric
                                      + "{job=\""
                                      + operatorJob
                                      + "\", network=\""
                                      + NETWORK
                                      + "\"}"))
                      .as(metric)
                      .isNotEmpty());
    }
    await("the network's Ready series at 1")
        .atMost(SETTLE)
        .untilAsserted(
            () ->
                assertThat(query("cni_operator_network_ready{network=\"" + NETWORK + "\"} == 1"))
                    .isNotEmpty());
    await("no alert firing on the healthy product")
        .atMost(SETTLE)
        .untilAsserted(
            () -> assertThat(query("ALERTS{alertstate=\"firing\"}")).as("firing").isEmpty());
    // A dashboard panel that shows "No data" on a healthy product is a bug.
    Map<String, String> variables = new HashMap<>(ChartDashboardIT.VARIABLES);
    variables.put("$operator_job", operatorJob);
    variables.put("$agent_job", agentJob());
    List<String> queries = ChartDashboardIT.queries(variables);
    await("every query of the dashboard returns series")
        .atMost(SETTLE)
        .untilAsserted(
            () ->
                assertThat(queries.stream().filter(q -> query(q).isEmpty()).toList())
                    .as("dashboard queries without data")
                    .isEmpty());
  }

  private String agentJob() {
    return monitoring.podMonitors().stream()
        .filter(p -> "agent".equals(p.at("/metadata/labels/app.kubernetes.io~1component").asText()))
        .map(MonitoringE2E::jobOf)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no agent PodMonitor rendered"));
  }

  @Test
  @Order(1)
  void aNetworkWhoseMacvlanMasterIsMissingFiresNotReadyUntilTheInterfaceExists() {
    String master = "cbmmis0";
    String net = "nomaster";
    apply(ClusterNetworks.macvlanNetwork(net, master, "10.239.88.0/24"));
    try {
      awaitAlert("CniNetworkNotReady", net, true);
      node.exec("ip", "link", "add", master, "type", "veth", "peer", "name", master + "p")
          .orThrow("ip link add " + master);
      node.exec("ip", "link", "set", master, "up").orThrow("ip link set up");
      awaitReady(net);
      awaitAlert("CniNetworkNotReady", net, false);
    } finally {
      cp.kubectl("delete", "cninetwork", net, "--timeout=120s");
      node.exec("ip", "link", "delete", master);
    }
  }

  @Test
  @Order(2)
  void aPodWhoseInterfaceIsFlushedFiresAttachmentsFailingNamingNetworkAndNodeUntilItIsGone() {
    String apps = NodePods.appsNamespace(cp.client());
    try {
      Pod pod = runPausePod(apps, TestNames.unique("flushed"));
      String agentJob = agentJob();
      String gauge =
          "cni_agent_failing_attachments{job=\""
              + agentJob
              + "\", network=\""
              + NETWORK
              + "\", node=\""
              + node.name()
              + "\"}";
      await("the pod's attachment checked healthy: " + gauge + " == 0")
          .atMost(SETTLE)
          .untilAsserted(() -> assertThat(values(gauge)).as(gauge).containsExactly("0"));

      NodePods.inPodNetwork(node, pod, "ip", "addr", "flush", "dev", "eth0")
          .orThrow("ip addr flush dev eth0 in " + pod.getMetadata().getName());
      Map<String, String> labels = Map.of("network", NETWORK, "node", node.name());
      awaitAlert("CniAgentAttachmentsFailing", labels, true);
      assertThat(firing("CniAgentAttachmentsFailing", labels).at("/0/metric/pod").asText())
          .as("the agent pod the alert names")
          .startsWith(agentJob);

      // The repair: the broken pod deleted.
      cp.client()
          .pods()
          .inNamespace(apps)
          .withName(pod.getMetadata().getName())
          .withGracePeriod(0)
          .delete();
      awaitAlert("CniAgentAttachmentsFailing", labels, false);
      await(gauge + " back to 0")
          .atMost(SETTLE)
          .untilAsserted(() -> assertThat(values(gauge)).as(gauge).containsExactly("0"));
    } finally {
      cp.kubectl("delete", "namespace", apps, "--wait=false");
    }
  }

  @Test
  @Order(3)
  void aBrokenEditThatIsRolledBackFiresRolloutStoppedNamingTheNetworkUntilItsWindowPasses() {
    apply(bridgeNetwork("mtu: 70000"));
    await("the broken edit rolled back")
        .atMost(SETTLE)
        .untilAsserted(
            () ->
                assertThat(
                        cp.client()
                            .resources(CniNetwork.class)
                            .withName(NETWORK)
                            .get()
                            .getStatus()
                            .getRollout()
                            .getPhase())
                    .isEqualTo(RolloutPhase.RolledBack));
    awaitAlert("CniNetworkRolloutStopped", NETWORK, true);
    JsonNode alert = firing("CniNetworkRolloutStopped", NETWORK);
    assertThat(alert.at("/0/metric/outcome").asText()).isEqualTo("rolled_back");
    // The repair: the edit undone. The alert resolves once its (1-minute) window holds no rollback.
    apply(bridgeNetwork(""));
    awaitReady(NETWORK);
    awaitAlert("CniNetworkRolloutStopped", NETWORK, false);
  }

  @Test
  @Order(4)
  void anAgentThatIsStoppedFiresAgentDownNamingTheNodeUntilItRunsAgain() {
    String agent = agentJob();
    String nowhere = "cni-operator.dev/monitoring-e2e-nowhere";
    Map<String, String> labels = Map.of("node", node.name());
    // The DaemonSet's pods go where no node is: the kubelet stops the agent, while Prometheus
    // keeps its target (the node's address, the agent being on the host network) and sees it down.
    patch("daemonset", agent, "{\"" + nowhere + "\": \"true\"}");
    try {
      await("the agent pod gone")
          .atMost(SETTLE)
          .untilAsserted(() -> assertThat(componentPods("agent")).isEmpty());
      awaitAlert("CniAgentDown", labels, true);
    } finally {
      patch("daemonset", agent, "{\"" + nowhere + "\": null}");
    }
    release.awaitRollout(cluster, "daemonset/" + agent, SETTLE);
    awaitAlert("CniAgentDown", labels, false);
    await("up{job=" + agent + "} == 1 again")
        .atMost(SETTLE)
        .untilAsserted(() -> assertThat(values("up{job=\"" + agent + "\"}")).containsExactly("1"));
  }

  @Test
  @Order(5)
  void anOperatorScaledToZeroFiresOperatorDownUntilItIsBack() {
    String operator = operatorJob();
    Map<String, String> labels = Map.of("job", operator);
    scaleOperator(0);
    try {
      await("no operator pod")
          .atMost(SETTLE)
          .untilAsserted(() -> assertThat(componentPods("operator")).isEmpty());
      awaitAlert("CniOperatorDown", labels, true);
    } finally {
      scaleOperator(1);
    }
    release.awaitRollout(cluster, "deployment/" + operator, SETTLE);
    awaitAlert("CniOperatorDown", labels, false);
  }

  private void scaleOperator(int replicas) {
    cp.kubectl(
            "-n",
            release.namespace(),
            "scale",
            "deployment/" + operatorJob(),
            "--replicas=" + replicas)
        .orThrow("kubectl scale the operator to " + replicas);
  }

  /** Merges {@code nodeSelector} (a JSON object; null values remove keys) into the workload's. */
  private void patch(String kind, String name, String nodeSelector) {
    cp.kubectl(
            "-n",
            release.namespace(),
            "patch",
            kind,
            name,
            "--type=merge",
            "-p",
            "{\"spec\": {\"template\": {\"spec\": {\"nodeSelector\": " + nodeSelector + "}}}}")
        .orThrow("kubectl patch " + kind + " " + name + " nodeSelector " + nodeSelector);
  }

  private List<Pod> componentPods(String component) {
    return cp.client()
        .pods()
        .inNamespace(release.namespace())
        .withLabel("app.kubernetes.io/component", component)
        .list()
        .getItems();
  }

  private Pod runPausePod(String namespace, String name) {
    cp.client()
        .pods()
        .inNamespace(namespace)
        .resource(NodePods.pinnedPausePod(name, node))
        .create();
    await("pod " + name + " running")
        .atMost(SETTLE)
        .until(
            () -> {
              Pod p = cp.client().pods().inNamespace(namespace).withName(name).get();
              return p != null
                  && p.getStatus() != null
                  && "Running".equals(p.getStatus().getPhase())
                  && p.getStatus().getPodIP() != null;
            });
    return cp.client().pods().inNamespace(namespace).withName(name).get();
  }

  /** The values of the series {@code promql} returns. */
  private List<String> values(String promql) {
    List<String> values = new ArrayList<>();
    query(promql).forEach(series -> values.add(series.at("/value/1").asText()));
    return values;
  }

  private void awaitAlert(String alert, String network, boolean firing) {
    awaitAlert(alert, Map.of("network", network), firing);
  }

  /** Waits until {@code alert} with {@code labels} fires (or no longer does), naming both. */
  private void awaitAlert(String alert, Map<String, String> labels, boolean firing) {
    await(alert + " of " + labels + (firing ? " firing" : " resolved"))
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              JsonNode series = firing(alert, labels);
              if (firing) {
                assertThat(series).as("ALERTS of %s", alert).isNotEmpty();
              } else {
                assertThat(series).as("ALERTS of %s", alert).isEmpty();
              }
            });
  }

  private JsonNode firing(String alert, String network) {
    return firing(alert, Map.of("network", network));
  }

  private JsonNode firing(String alert, Map<String, String> labels) {
    StringBuilder selector =
        new StringBuilder("ALERTS{alertname=\"")
            .append(alert)
            .append("\", alertstate=\"firing\", namespace=\"")
            .append(release.namespace())
            .append('"');
    new TreeMap<>(labels)
        .forEach((k, v) -> selector.append(", ").append(k).append("=\"").append(v).append('"'));
    return query(selector.append('}').toString());
  }

  private String operatorJob() {
    return monitoring.podMonitors().stream()
        .filter(
            p -> "operator".equals(p.at("/metadata/labels/app.kubernetes.io~1component").asText()))
        .map(MonitoringE2E::jobOf)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no operator PodMonitor rendered"));
  }

  /** The job the PodMonitor's relabelings set. */
  private static String jobOf(JsonNode podMonitor) {
    for (JsonNode r : podMonitor.at("/spec/podMetricsEndpoints/0/relabelings")) {
      if ("job".equals(r.path("targetLabel").asText())) {
        return r.path("replacement").asText();
      }
    }
    throw new AssertionError(
        "PodMonitor " + podMonitor.at("/metadata/name").asText() + " sets no job label");
  }

  /** Prometheus's instant query result (the array of series); fails on an error status. */
  private JsonNode query(String promql) {
    URI uri =
        prometheusUrl.resolve(
            "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    JsonNode body;
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
      body = JSON.readTree(response.body());
    } catch (IOException e) {
      throw new AssertionError("query " + promql, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("query " + promql, e);
    }
    assertThat(body.path("status").asText()).as("query %s: %s", promql, body).isEqualTo("success");
    return body.at("/data/result");
  }

  private void startPrometheus() throws IOException {
    Path rules = dir.resolve("rules.yaml");
    YAML.writeValue(rules.toFile(), monitoring.prometheusRule().path("spec"));
    ObjectNode config = JSON.createObjectNode();
    config.putObject("global").put("scrape_interval", "2s").put("evaluation_interval", "2s");
    config.putArray("rule_files").add(rules.toString());
    ArrayNode scrapeConfigs = config.putArray("scrape_configs");
    for (JsonNode podMonitor : monitoring.podMonitors()) {
      scrapeConfigs.add(scrapeConfig(podMonitor));
    }
    Path configFile = dir.resolve("prometheus.yml");
    YAML.writeValue(configFile.toFile(), config);

    int port = FreePorts.onLoopback();
    Path binary = ToolPaths.promtool().resolveSibling("prometheus");
    prometheus =
        new ProcessBuilder(
                binary.toString(),
                "--config.file=" + configFile,
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
    prometheusUrl = URI.create("http://127.0.0.1:" + port);
    await("Prometheus ready")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(prometheus.isAlive())
                  .as("prometheus running: %s", Files.readString(dir.resolve("prometheus.log")))
                  .isTrue();
              HttpResponse<String> ready =
                  http.send(
                      HttpRequest.newBuilder(prometheusUrl.resolve("/-/ready")).GET().build(),
                      HttpResponse.BodyHandlers.ofString());
              assertThat(ready.statusCode()).isEqualTo(200);
            });
  }

  /**
   * The static equivalent of {@code podMonitor}: the pods its selector matches in its namespaces,
   * at their IP and the named port, labelled as the Prometheus Operator's pod discovery labels
   * them, then the PodMonitor's relabelings.
   */
  private ObjectNode scrapeConfig(JsonNode podMonitor) {
    String name = podMonitor.at("/metadata/name").asText();
    JsonNode endpoint = podMonitor.at("/spec/podMetricsEndpoints/0");
    Map<String, String> selector = new TreeMap<>();
    podMonitor
        .at("/spec/selector/matchLabels")
        .fields()
        .forEachRemaining(e -> selector.put(e.getKey(), e.getValue().asText()));
    assertThat(selector).as("PodMonitor %s spec.selector.matchLabels", name).isNotEmpty();
    String portName = endpoint.path("port").asText();

    ObjectNode scrape = JSON.createObjectNode();
    scrape.put("job_name", podMonitor.at("/metadata/namespace").asText() + "/" + name);
    scrape.put("metrics_path", endpoint.path("path").asText("/metrics"));
    scrape.put("scheme", endpoint.path("scheme").asText("http"));
    ArrayNode statics = scrape.putArray("static_configs");
    List<String> namespaces = new ArrayList<>();
    podMonitor.at("/spec/namespaceSelector/matchNames").forEach(n -> namespaces.add(n.asText()));
    assertThat(namespaces).as("PodMonitor %s namespaceSelector.matchNames", name).isNotEmpty();
    for (String namespace : namespaces) {
      List<Pod> pods =
          cp.client().pods().inNamespace(namespace).withLabels(selector).list().getItems();
      assertThat(pods).as("pods PodMonitor %s selects", name).isNotEmpty();
      for (Pod pod : pods) {
        ObjectNode group = statics.addObject();
        group
            .putArray("targets")
            .add(pod.getStatus().getPodIP() + ":" + containerPort(pod, portName));
        group
            .putObject("labels")
            .put("__meta_kubernetes_namespace", namespace)
            .put("__meta_kubernetes_pod_name", pod.getMetadata().getName())
            .put("__meta_kubernetes_pod_node_name", pod.getSpec().getNodeName());
      }
    }
    ArrayNode relabels = scrape.putArray("relabel_configs");
    // What the Prometheus Operator adds before the PodMonitor's own relabelings.
    relabels
        .addObject()
        .put("action", "replace")
        .put("target_label", "namespace")
        .put("replacement", "$1")
        .putArray("source_labels")
        .add("__meta_kubernetes_namespace");
    for (JsonNode r : endpoint.path("relabelings")) {
      ObjectNode c = relabels.addObject();
      c.put("action", r.path("action").asText("replace"));
      if (r.has("targetLabel")) {
        c.put("target_label", r.path("targetLabel").asText());
      }
      if (r.has("sourceLabels")) {
        c.set("source_labels", r.path("sourceLabels"));
      }
      for (String field : List.of("replacement", "regex", "separator")) {
        if (r.has(field)) {
          c.put(field, r.path(field).asText());
        }
      }
    }
    return scrape;
  }

  private static int containerPort(Pod pod, String portName) {
    for (Container c : pod.getSpec().getContainers()) {
      for (ContainerPort p : c.getPorts()) {
        if (portName.equals(p.getName())) {
          return p.getContainerPort();
        }
      }
    }
    throw new AssertionError(
        "pod " + pod.getMetadata().getName() + " has no container port named " + portName);
  }

  private static String bridgeNetwork(String extraBridgeField) {
    return ClusterNetworks.gatewayBridgeNetwork(
        NETWORK, "cbwatch0", "10.239.87.0/24", extraBridgeField);
  }

  private void apply(String yaml) {
    cp.kubectlWithInput(yaml, "apply", "-f", "-").orThrow("kubectl apply");
  }

  private void awaitReady(String network) {
    ClusterNetworks.on(cp).waitReady(network);
  }
}
