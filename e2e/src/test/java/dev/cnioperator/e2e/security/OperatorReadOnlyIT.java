package dev.cnioperator.e2e.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.e2e.LocalProduct;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.ProductProcess;
import dev.cnioperator.e2e.faults.FaultProduct;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The operator as the chart's Deployment runs it, as far as this machine can without a kubelet: as
 * the chart's non-root user and group, with a working directory it cannot write (the jar and its
 * kubeconfig in it), {@code HOME=/nonexistent}, and only {@code /tmp} writable as the chart's
 * emptyDir makes it. It must still do its whole job: a network becomes Ready on a node.
 * (ChartLintIT checks the rendered securityContext itself.)
 */
class OperatorReadOnlyIT {

  @Test
  void theOperatorWorksAsTheChartsNonRootUserWithNothingWritableButTmp() throws Exception {
    Prerequisites.requireCommand("setpriv");
    try (FaultProduct fault = FaultProduct.install("ro")) {
      PodSpec chart = chartDeployment(fault).getSpec().getTemplate().getSpec();
      PodSecurityContext pod = chart.getSecurityContext();
      Container container = chart.getContainers().get(0);
      assertThat(pod.getRunAsNonRoot()).isTrue();
      assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
      long uid = pod.getRunAsUser();
      long gid = pod.getRunAsGroup();
      assertThat(uid).isNotZero();

      Path readOnly = Files.createTempDirectory("cni-operator-ro-");
      try {
        Path jar =
            Files.copy(
                ToolPaths.repoRoot().resolve("operator/target/cni-operator.jar"),
                readOnly.resolve("cni-operator.jar"));
        Path kubeconfig = readOnly.resolve("kubeconfig");
        writeKubeconfig(fault.controlPlane(), kubeconfig);
        for (Path p : List.of(jar, kubeconfig)) {
          Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("r--r--r--"));
        }
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-xr-xr-x"));

        ProductProcess operator =
            ProductProcess.start(
                "operator read-only",
                jar,
                List.of(
                    "--kubeconfig",
                    kubeconfig.toString(),
                    "--namespace",
                    LocalProduct.NAMESPACE,
                    "--identity",
                    "fault-operator",
                    "--metrics-port",
                    "0"),
                fault.work().resolve("operator-read-only.log"),
                ProcessOptions.DEFAULT
                    .runUnder("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups")
                    .inDirectory(readOnly)
                    .withEnvironment("HOME", "/nonexistent"));
        try {
          fault.product().startAgent(fault.createNode("ro"));
          String network = TestNames.unique("ro");
          fault.apply(fault.bridgeNetwork(network, 1400, 60));
          fault.waitReady(network);
          fault
              .controlPlane()
              .kubectl("delete", "cninetwork", network, "--timeout=60s")
              .orThrow("delete " + network + " through the read-only operator's finalizer");

          String status = Files.readString(Path.of("/proc/" + operator.pid() + "/status"));
          assertThat(status).containsPattern("(?m)^Uid:\\s+" + uid + "\\s");
          assertThat(status).containsPattern("(?m)^Gid:\\s+" + gid + "\\s");
          try (var entries = Files.list(readOnly)) {
            assertThat(entries.map(p -> p.getFileName().toString()))
                .containsExactlyInAnyOrder("cni-operator.jar", "kubeconfig");
          }
          assertThat(operator.output())
              .doesNotContain("AccessDeniedException")
              .doesNotContain("Permission denied")
              .doesNotContain("Read-only file system");
          System.out.printf(
              "security=operator-read-only uid=%d gid=%d cwd-mode=0555 home=/nonexistent"
                  + " network-ready=true%n",
              uid, gid);
        } finally {
          operator.stop();
        }
      } finally {
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("rwx------"));
        try (var entries = Files.list(readOnly)) {
          for (Path p : entries.toList()) {
            Files.delete(p);
          }
        }
        Files.delete(readOnly);
      }
    }
  }

  /** The Deployment exactly as helm installed it. */
  private static Deployment chartDeployment(FaultProduct fault) {
    String manifest =
        fault
            .product()
            .helm(
                List.of(
                    "get", "manifest", LocalProduct.RELEASE, "--namespace", LocalProduct.NAMESPACE))
            .orThrow("helm get manifest")
            .stdout();
    List<HasMetadata> objects =
        fault
            .controlPlane()
            .client()
            .load(new ByteArrayInputStream(manifest.getBytes(StandardCharsets.UTF_8)))
            .items();
    return objects.stream()
        .filter(Deployment.class::isInstance)
        .map(Deployment.class::cast)
        .findFirst()
        .orElseThrow();
  }

  /**
   * A kubeconfig for a fresh operator token in {@code file}, carrying the CA inline: the control
   * plane's CA file lives under root's home, which the chart's user cannot read.
   */
  private static Path writeKubeconfig(LocalControlPlane cp, Path file) throws IOException {
    String token =
        cp.serviceAccountToken(
            LocalProduct.NAMESPACE, LocalProduct.OPERATOR_ACCOUNT, Duration.ofHours(1));
    String caFile = cp.client().getConfiguration().getCaCertFile();
    String ca = Base64.getEncoder().encodeToString(Files.readAllBytes(Path.of(caFile)));
    String text = Files.readString(cp.writeKubeconfigForToken(token, file));
    return Files.writeString(
        file,
        text.replace("certificate-authority: " + caFile, "certificate-authority-data: " + ca));
  }
}
