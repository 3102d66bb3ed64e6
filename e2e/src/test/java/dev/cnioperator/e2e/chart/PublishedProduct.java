package dev.cnioperator.e2e.chart;

import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.images.LocalRegistry;
import dev.cnioperator.testkit.images.ProductImages;
import dev.cnioperator.testkit.node.KubeletCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The product in a cluster's registry as a user gets it there: {@code bin/publish --no-build
 * --plain-http} of the images the test command built, which pushes both images, the agent's base
 * and the chart as an OCI artifact whose default image values are the pushed images by digest.
 *
 * @param chart {@code oci://<registry>/cni-operator/charts/cni-operator}
 * @param version the chart's version, for {@code helm install --version}
 * @param registry where the images are, {@code <address>:<port>}
 * @param operatorDigest the operator image's digest, {@code sha256:...}
 * @param agentDigest the node agent image's digest
 */
public record PublishedProduct(
    String chart, String version, String registry, String operatorDigest, String agentDigest) {
  private static final Pattern CHART_LINE =
      Pattern.compile("^\\s*chart\\s+(oci://\\S+) --version (\\S+)$", Pattern.MULTILINE);
  private static final Pattern OPERATOR_LINE =
      Pattern.compile("^\\s*operator\\s+\\S+@(sha256:[0-9a-f]{64})$", Pattern.MULTILINE);
  private static final Pattern AGENT_LINE =
      Pattern.compile("^\\s*node agent\\s+\\S+@(sha256:[0-9a-f]{64})$", Pattern.MULTILINE);

  /** Publishes the built product into {@code cluster}'s registry (started if need be). */
  public static PublishedProduct publish(KubeletCluster cluster, Helm helm) {
    // The tarballs bin/publish --no-build pushes; missing, they fail naming the build command.
    ProductImages.operator();
    ProductImages.agent();
    return publishFrom(cluster, helm, ToolPaths.repoRoot());
  }

  /**
   * Publishes the product built in the source tree {@code root} (another release's, built there)
   * into {@code cluster}'s registry, by that tree's own {@code bin/publish --no-build}.
   */
  static PublishedProduct publishFrom(KubeletCluster cluster, Helm helm, Path root) {
    LocalRegistry registry = cluster.registry();
    CommandResult published =
        Commands.run(
            List.of(
                "bash",
                root.resolve("bin/publish").toString(),
                "--no-build",
                "--plain-http",
                registry.hostPort() + "/cni-operator"),
            helm.environment(),
            null,
            Duration.ofMinutes(5));
    published.orThrow("bin/publish --no-build --plain-http " + registry.hostPort());
    Matcher chart = CHART_LINE.matcher(published.stdout());
    Matcher operator = OPERATOR_LINE.matcher(published.stdout());
    Matcher agent = AGENT_LINE.matcher(published.stdout());
    if (!chart.find() || !operator.find() || !agent.find()) {
      throw new IllegalStateException(
          "bin/publish did not name the chart and both images' digests:\n" + published.stdout());
    }
    return new PublishedProduct(
        chart.group(1), chart.group(2), registry.hostPort(), operator.group(1), agent.group(1));
  }

  /** What {@code helm install} and {@code helm upgrade} take to reach the chart. */
  List<String> helmChartArgs() {
    return List.of(chart, "--version", version, "--plain-http");
  }

  /** The node agent's repository in the registry, {@code <registry>/cni-operator/node-agent}. */
  String agentRepository() {
    return registry + "/cni-operator/node-agent";
  }
}
