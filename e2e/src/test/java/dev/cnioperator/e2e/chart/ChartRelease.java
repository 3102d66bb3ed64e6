package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;

/**
 * A release of the chart installed with the real helm into the local control plane, in a namespace
 * of its own (named like the release); closing it uninstalls the release and deletes the namespace.
 */
final class ChartRelease implements AutoCloseable {
  private final Helm helm;
  private final LocalControlPlane controlPlane;
  private final String name;
  private final String installOutput;

  private ChartRelease(
      Helm helm, LocalControlPlane controlPlane, String name, String installOutput) {
    this.helm = helm;
    this.controlPlane = controlPlane;
    this.name = name;
    this.installOutput = installOutput;
  }

  /**
   * {@code helm install} without waiting (no kubelet will ever run the pods); throws with helm's
   * output when the install fails.
   */
  static ChartRelease install(LocalControlPlane controlPlane, String namePrefix) {
    Helm helm = Helm.provisioned().withKubeconfig(controlPlane.kubeconfigFile());
    String name = TestNames.unique(namePrefix);
    CommandResult install =
        helm.run(
            "install",
            name,
            Helm.chartDir().toString(),
            "--namespace",
            name,
            "--create-namespace",
            "--wait=false",
            "--timeout",
            "2m");
    ChartRelease release = new ChartRelease(helm, controlPlane, name, install.stdout());
    if (!install.ok()) {
      release.close();
      install.orThrow("helm install " + name);
    }
    return release;
  }

  String name() {
    return name;
  }

  String namespace() {
    return name;
  }

  /** What helm printed on install, the rendered NOTES.txt included. */
  String installOutput() {
    return installOutput;
  }

  String agentServiceAccount() {
    return name + "-cni-operator-agent";
  }

  String operatorServiceAccount() {
    return name + "-cni-operator-operator";
  }

  /** The objects of the release as helm recorded them ({@code helm get manifest}). */
  RenderedChart manifest() {
    return RenderedChart.parse(
        helm.run("get", "manifest", name, "--namespace", name)
            .orThrow("helm get manifest")
            .stdout());
  }

  /** {@code helm uninstall --wait}; the namespace stays until {@link #close()}. */
  CommandResult uninstall() {
    return helm.run("uninstall", name, "--namespace", name, "--wait", "--timeout", "2m");
  }

  @Override
  public void close() {
    helm.run("uninstall", name, "--namespace", name, "--ignore-not-found");
    controlPlane.client().namespaces().withName(name).delete();
  }
}
