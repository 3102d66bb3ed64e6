package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CniNetworks of {@code examples/} are what a user applies first, so each must be accepted by
 * the real API server with the chart's CRDs, and each must actually set up a pod when an
 * independent CNI runtime (libcni's cnitool) runs it with the reference plugins. The plugins run
 * inside a network namespace standing in for the node, so the bridge, routes and iptables rules
 * they make never touch the machine's own network.
 */
class ExamplesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern ADDRESS = Pattern.compile("inet (\\d+\\.\\d+\\.\\d+\\.\\d+)/");

  @Test
  void everyExampleIsAcceptedByTheApiServerWithTheChartsCrds() throws IOException {
    LocalControlPlane controlPlane = LocalControlPlane.shared();
    Path crds = Helm.chartDir().resolve("crds");
    controlPlane
        .kubectl("apply", "--server-side", "--force-conflicts", "-f", crds.toString())
        .orThrow("kubectl apply the chart's CRDs");
    controlPlane
        .kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
        .orThrow("kubectl wait for the CRDs");

    List<Path> examples = ExampleNetwork.files();
    assertThat(examples).hasSizeGreaterThanOrEqualTo(3);
    for (Path example : examples) {
      CommandResult applied =
          controlPlane.kubectl("apply", "--dry-run=server", "-f", example.toString());
      assertThat(applied.exitCode()).as("%s: %s", example.getFileName(), applied.stderr()).isZero();
      assertThat(applied.stdout()).contains("(server dry run)");
    }
  }

  static List<Path> examples() {
    return ExampleNetwork.files();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void exampleSetsUpAPodWithTheReferencePlugins(Path file) throws IOException {
    ExampleNetwork example = ExampleNetwork.read(file);
    Path work = Files.createTempDirectory("cni-operator-example");
    Path confDir = Files.createDirectories(work.resolve("net.d"));
    Files.writeString(
        confDir.resolve(example.networkName() + ".conflist"),
        JSON.writeValueAsString(example.conflistWithIpamDataDir(work.resolve("ipam"))));

    try (NetworkNamespace node = NetworkNamespace.create("exnode");
        NetworkNamespace pod = NetworkNamespace.create("expod")) {
      try {
        addCheckDel(example, confDir, node, pod);
      } finally {
        // cnitool keeps libcni's result cache in the host's /var/lib/cni; DEL removes the entry,
        // this removes it when the test failed before DEL.
        Files.deleteIfExists(cnitoolCacheEntry(example, pod));
      }
    } finally {
      deleteTree(work);
    }
  }

  private static void addCheckDel(
      ExampleNetwork example, Path confDir, NetworkNamespace node, NetworkNamespace pod)
      throws IOException {
    // macvlan's master is the node's uplink (ExampleNetwork.NODE labels it uplink0; a
    // veth pair, as this kernel may have no dummy driver).
    node.exec("ip", "link", "add", "uplink0", "type", "veth", "peer", "name", "uplink0p");
    node.exec("ip", "link", "set", "uplink0p", "up");
    node.exec("ip", "link", "set", "uplink0", "up");
    node.exec("ip", "route", "add", "default", "dev", "uplink0");

    CommandResult add = cnitool(node, confDir, "add", example, pod);
    assertThat(add.exitCode()).as("cnitool add: %s", add.stderr()).isZero();
    JsonNode result = JSON.readTree(add.stdout());
    assertThat(result.path("cniVersion").asText())
        .isEqualTo(example.spec().path("cniVersion").asText());
    String podAddress = firstAddress(pod.exec("ip", "-4", "addr", "show", "dev", "eth0"));
    assertThat(result.path("ips").get(0).path("address").asText()).startsWith(podAddress + "/");
    assertThat(podAddress).startsWith("10.200.");

    if (!example.spec().path("plugins").get(0).path("type").asText().equals("macvlan")) {
      // macvlan children cannot reach their parent by design; the others route to the node.
      assertThat(tcpAnswerFromPod(node, pod, podAddress)).isEqualTo("pong");
    }
    CommandResult check = cnitool(node, confDir, "check", example, pod);
    assertThat(check.exitCode()).as("cnitool check: %s", check.stderr()).isZero();
    if (example.spec().path("cniVersion").asText().equals("1.1.0")) {
      CommandResult status = cnitool(node, confDir, "status", example, pod);
      assertThat(status.exitCode()).as("cnitool status: %s", status.stderr()).isZero();
    }

    CommandResult del = cnitool(node, confDir, "del", example, pod);
    assertThat(del.exitCode()).as("cnitool del: %s", del.stderr()).isZero();
    assertThat(pod.execResult("ip", "link", "show", "eth0").exitCode()).isNotZero();
  }

  /** The file libcni writes for cnitool's attachment (cnitool derives the id from the netns). */
  private static Path cnitoolCacheEntry(ExampleNetwork example, NetworkNamespace pod) {
    try {
      byte[] sum =
          MessageDigest.getInstance("SHA-512")
              .digest(pod.path().toString().getBytes(StandardCharsets.UTF_8));
      String containerId = "cnitool-" + HexFormat.of().formatHex(sum, 0, 10);
      return Path.of("/var/lib/cni/results", example.networkName() + "-" + containerId + "-eth0");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Real traffic from the node to the pod: a one-shot TCP listener in the pod's namespace answers a
   * client in the node's (perl, because this machine may have neither ping nor nc).
   */
  private static String tcpAnswerFromPod(
      NetworkNamespace node, NetworkNamespace pod, String address) throws IOException {
    Process listener =
        new ProcessBuilder(
                "ip",
                "netns",
                "exec",
                pod.name(),
                "perl",
                "-MIO::Socket::INET",
                "-e",
                "alarm 20; my $s = IO::Socket::INET->new(LocalPort => 18081, Listen => 1,"
                    + " ReuseAddr => 1) or die $!; my $c = $s->accept; print $c \"pong\\n\";")
            .redirectErrorStream(true)
            .start();
    try {
      String client =
          "alarm 5; my $c = IO::Socket::INET->new(PeerAddr => '"
              + address
              + "', PeerPort => 18081, Timeout => 2) or die \"connect: $!\"; print scalar <$c>;";
      String[] answer = {""};
      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                CommandResult r = node.execResult("perl", "-MIO::Socket::INET", "-e", client);
                answer[0] = r.stdout().trim();
                return r.ok();
              });
      return answer[0];
    } finally {
      listener.destroyForcibly();
    }
  }

  private static CommandResult cnitool(
      NetworkNamespace node,
      Path confDir,
      String verb,
      ExampleNetwork example,
      NetworkNamespace pod) {
    Path cnitool = ToolPaths.cnitool();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "env",
                "CNI_PATH=" + ToolPaths.pluginDir(),
                "NETCONFPATH=" + confDir,
                "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=" + pod.name(),
                "CAP_ARGS={\"portMappings\":[{\"hostPort\":18080,\"containerPort\":80,\"protocol\":\"tcp\"}]}",
                cnitool.toString(),
                verb,
                example.networkName(),
                pod.path().toString()));
    return node.execResult(cmd.toArray(String[]::new));
  }

  private static String firstAddress(String ipAddrOutput) {
    Matcher m = ADDRESS.matcher(ipAddrOutput);
    assertThat(m.find()).as("an IPv4 address on eth0:\n%s", ipAddrOutput).isTrue();
    return m.group(1);
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
