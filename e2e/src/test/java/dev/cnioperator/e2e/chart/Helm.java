package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The real {@code helm} CLI (built by {@code e2e/bin/provision}) with its cache, config and data
 * directories in a private temporary directory, so tests neither read nor write the user's.
 */
final class Helm {
  private final Path helm;
  private final Map<String, String> env;
  private final List<String> globalArgs;

  private Helm(Path helm, Map<String, String> env, List<String> globalArgs) {
    this.helm = helm;
    this.env = env;
    this.globalArgs = globalArgs;
  }

  /** The provisioned helm; fails (CI) or skips when it has not been built. */
  static Helm provisioned() {
    try {
      Path home = Files.createTempDirectory("cni-operator-helm");
      Map<String, String> env =
          Map.of(
              "HELM_CACHE_HOME", home.resolve("cache").toString(),
              "HELM_CONFIG_HOME", home.resolve("config").toString(),
              "HELM_DATA_HOME", home.resolve("data").toString());
      return new Helm(ToolPaths.helm(), env, List.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** This helm, talking to the cluster of {@code kubeconfig}. */
  Helm withKubeconfig(Path kubeconfig) {
    return new Helm(helm, env, List.of("--kubeconfig=" + kubeconfig));
  }

  /** The chart's directory in this checkout. */
  static Path chartDir() {
    return ToolPaths.repoRoot().resolve("charts/cni-operator");
  }

  /** Runs {@code helm <args>} and returns what it printed; never throws on a non-zero exit. */
  CommandResult run(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(helm.toString());
    cmd.addAll(List.of(args));
    cmd.addAll(globalArgs);
    return Commands.run(cmd, env, null, Duration.ofMinutes(3));
  }

  /**
   * {@code helm template} of the chart with {@code extraArgs} (such as {@code --set k=v}), for the
   * pinned Kubernetes version: a helm built from source without the release's ldflags would
   * otherwise assume Kubernetes 1.20, which the chart's kubeVersion refuses.
   */
  CommandResult template(String... extraArgs) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "template",
                "cni",
                chartDir().toString(),
                "--kube-version",
                ToolPaths.kubernetesVersion()));
    args.addAll(List.of(extraArgs));
    return run(args.toArray(String[]::new));
  }

  /** Renders the chart and parses every object; fails when helm refuses the values. */
  RenderedChart render(String... extraArgs) {
    return RenderedChart.parse(template(extraArgs).orThrow("helm template").stdout());
  }
}
