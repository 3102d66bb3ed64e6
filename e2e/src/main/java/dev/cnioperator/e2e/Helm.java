package dev.cnioperator.e2e;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ForkSlot;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The real {@code helm} CLI (built by {@code e2e/bin/provision}) with its cache, config and data
 * directories in a private directory, so tests neither read nor write the user's.
 */
public final class Helm {
  private static final Duration LIMIT = Duration.ofMinutes(3);

  private final Path helm;
  private final Map<String, String> env;
  private final List<String> globalArgs;
  private final Duration limit;

  private Helm(Path helm, Map<String, String> env, List<String> globalArgs, Duration limit) {
    this.helm = helm;
    this.env = env;
    this.globalArgs = globalArgs;
    this.limit = limit;
  }

  /**
   * The provisioned helm with its directories in this module's {@code target/helm-home-<slot>},
   * which the build's clean removes; the tests of one JVM add no repository or plugin, so they can
   * share it. Test JVMs running at once ({@link ForkSlot}) each have their own: every cluster's
   * chart is {@code cni-operator-<version>.tgz} in helm's cache, with that cluster's registry in
   * its values, and another JVM's download must not replace it between the pull and the install.
   */
  public static Helm provisioned() {
    return inHome(Path.of("target/helm-home-" + ForkSlot.current()).toAbsolutePath());
  }

  /**
   * The provisioned helm with its cache, config and data directories under {@code home}, and its
   * Kubernetes discovery cache too (by default ~/.kube/cache, a directory per API server address).
   */
  public static Helm inHome(Path home) {
    Map<String, String> env =
        Map.of(
            "HELM_CACHE_HOME", home.resolve("cache").toString(),
            "HELM_CONFIG_HOME", home.resolve("config").toString(),
            "HELM_DATA_HOME", home.resolve("data").toString(),
            "KUBECACHEDIR", home.resolve("kube-cache").toString());
    return new Helm(ToolPaths.helm(), env, List.of(), LIMIT);
  }

  /** This helm, talking to the cluster of {@code kubeconfig}. */
  public Helm withKubeconfig(Path kubeconfig) {
    return new Helm(helm, env, List.of("--kubeconfig=" + kubeconfig), limit);
  }

  /** This helm, each run killed after {@code limit} (3 minutes unless said), for {@code --wait}. */
  public Helm withLimit(Duration newLimit) {
    return new Helm(helm, env, globalArgs, newLimit);
  }

  /** The chart's directory in this checkout. */
  public static Path chartDir() {
    return ToolPaths.repoRoot().resolve("charts/cni-operator");
  }

  /** Runs {@code helm <args>} and returns what it printed; never throws on a non-zero exit. */
  public CommandResult run(String... args) {
    return run(List.of(args));
  }

  public CommandResult run(List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(helm.toString());
    cmd.addAll(args);
    cmd.addAll(globalArgs);
    return Commands.run(cmd, env, null, limit);
  }

  /**
   * {@code helm install} of the chart as {@code release} into {@code namespace} (created), without
   * waiting: no kubelet may ever run the pods. {@code extraArgs} such as {@code --set k=v}.
   */
  public CommandResult install(String release, String namespace, String... extraArgs) {
    List<String> args = new ArrayList<>(List.of("--wait=false"));
    args.addAll(List.of(extraArgs));
    return install(release, namespace, List.of(chartDir().toString()), args);
  }

  /**
   * {@code helm install} of {@code chart} (the chart's directory, or an {@code oci://} reference
   * with its {@code --version} and registry flags) as {@code release} into {@code namespace}
   * (created), with {@code extraArgs}.
   */
  public CommandResult install(
      String release, String namespace, List<String> chart, List<String> extraArgs) {
    List<String> args = new ArrayList<>(List.of("install", release));
    args.addAll(chart);
    args.addAll(List.of("--namespace", namespace, "--create-namespace"));
    args.addAll(extraArgs);
    return run(args);
  }

  /** The environment helm runs with: its private cache, config and data directories. */
  public Map<String, String> environment() {
    return env;
  }

  /**
   * {@code helm template} of the chart with {@code extraArgs} (such as {@code --set k=v}), for the
   * pinned Kubernetes version: a helm built from source without the release's ldflags would
   * otherwise assume Kubernetes 1.20, which the chart's kubeVersion refuses.
   */
  public CommandResult template(String... extraArgs) {
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
}
