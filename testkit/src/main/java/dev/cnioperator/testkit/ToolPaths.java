package dev.cnioperator.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the provisioned tools are: the paths {@code e2e/bin/provision env} prints (the pinned
 * control-plane binaries, helm, cnitool, the reference plugins, crictl, containerd 1.7 and 2.x,
 * CRI-O, Multus, whereabouts, flanneld, the Prometheus Operator's CRDs), read once per JVM. Each
 * getter fails (CI) or skips (elsewhere) when its tool has not been built.
 */
public final class ToolPaths {
  private static volatile Map<String, String> env;

  private ToolPaths() {}

  /** The checkout's root directory: {@code CNI_OPERATOR_ROOT}, or found upwards from here. */
  public static Path repoRoot() {
    String fromEnv = System.getenv("CNI_OPERATOR_ROOT");
    if (fromEnv != null && Files.isRegularFile(Path.of(fromEnv, "e2e/bin/provision"))) {
      return Path.of(fromEnv).toAbsolutePath();
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("e2e/bin/provision"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "cannot find the checkout root (no e2e/bin/provision above "
            + Path.of("").toAbsolutePath()
            + "); set CNI_OPERATOR_ROOT");
  }

  /** The pinned Kubernetes version, for example {@code 1.34.4}. */
  public static String kubernetesVersion() {
    return value("KUBEAPITEST_K8S_VERSION");
  }

  /** The directory with kube-apiserver, kube-controller-manager, kubectl and etcd. */
  public static Path kubernetesBinDir() {
    return Path.of(value("KUBEAPITEST_BIN"));
  }

  public static Path kubectl() {
    return Prerequisites.requireExecutable(kubernetesBinDir().resolve("kubectl"), "kubectl");
  }

  public static Path kubeControllerManager() {
    return Prerequisites.requireExecutable(
        kubernetesBinDir().resolve("kube-controller-manager"), "kube-controller-manager");
  }

  /**
   * kubelet, for real nodes ({@code KubeletNode}): the pinned release's, or {@code
   * KUBELET_VERSION}'s when e2e/bin/matrix runs nodes older than their API server.
   */
  public static Path kubelet() {
    return Prerequisites.requireExecutable(Path.of(value("CNI_OPERATOR_KUBELET")), "kubelet");
  }

  /**
   * The release a cluster starts on before it is upgraded to the pinned one ({@code UPGRADE_FROM}
   * of e2e/bin/matrix), for example {@code 1.36.3}.
   */
  public static String upgradeFromVersion() {
    String v = env().get("CNI_OPERATOR_UPGRADE_FROM");
    Prerequisites.require(
        v != null,
        "a Kubernetes release to upgrade from (UPGRADE_FROM)",
        "run e2e/bin/matrix, which sets UPGRADE_FROM and builds that release");
    return v;
  }

  /**
   * The directory of {@link #upgradeFromVersion()}'s kube-apiserver, kube-controller-manager,
   * kube-scheduler and kubelet.
   */
  public static Path upgradeFromBinDir() {
    upgradeFromVersion();
    Path dir = Path.of(value("CNI_OPERATOR_UPGRADE_FROM_BIN"));
    for (String b :
        List.of("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet")) {
      Prerequisites.requireExecutable(dir.resolve(b), b + " " + upgradeFromVersion());
    }
    return dir;
  }

  public static Path kubeScheduler() {
    return Prerequisites.requireExecutable(
        kubernetesBinDir().resolve("kube-scheduler"), "kube-scheduler");
  }

  public static Path helm() {
    return Prerequisites.requireExecutable(Path.of(value("CNI_OPERATOR_HELM")), "helm");
  }

  public static Path cnitool() {
    return Prerequisites.requireExecutable(Path.of(value("CNI_OPERATOR_CNITOOL")), "cnitool");
  }

  /** crictl built from the Go module proxy at the pinned release (CRI v1). */
  public static Path crictl() {
    return Prerequisites.requireExecutable(Path.of(value("CNI_OPERATOR_CRICTL")), "crictl");
  }

  /** containerd 1.7 (containerd, its runc shim, ctr) built from the Go module proxy. */
  public static Path containerd17Dir() {
    return containerdDir("CNI_OPERATOR_CONTAINERD17", "containerd 1.7");
  }

  /** containerd 2.x (containerd, its runc shim, ctr) built from the Go module proxy. */
  public static Path containerd2Dir() {
    return containerdDir("CNI_OPERATOR_CONTAINERD2", "containerd 2.x");
  }

  /** CRI-O (crio and pinns) built from the Go module proxy by e2e/bin/provision. */
  public static Path crioDir() {
    Path dir = Path.of(value("CNI_OPERATOR_CRIO"));
    Prerequisites.requireExecutable(dir.resolve("crio"), "CRI-O's crio");
    Prerequisites.requireExecutable(dir.resolve("pinns"), "CRI-O's pinns");
    return dir;
  }

  /** conmon, CRI-O's container monitor, from Debian's conmon package on PATH. */
  public static Path conmon() {
    return Prerequisites.requireCommand("conmon");
  }

  private static Path containerdDir(String key, String what) {
    Path dir = Path.of(value(key));
    Prerequisites.requireExecutable(dir.resolve("containerd"), what);
    return dir;
  }

  /**
   * Multus built from the Go module proxy at the pinned release: the thin plugin {@code multus},
   * the thick mode's {@code multus-shim} and {@code multus-daemon}, and {@code networks-crd.yaml},
   * the NetworkAttachmentDefinition CRD of the client module that Multus release requires.
   */
  public static Path multusDir() {
    Path dir = Path.of(value("CNI_OPERATOR_MULTUS"));
    Prerequisites.requireExecutable(dir.resolve("multus"), "Multus");
    return dir;
  }

  /**
   * Istio's CNI node installer {@code install-cni} and its plugin {@code istio-cni}, built from the
   * Go module proxy at the pinned commit, static.
   */
  public static Path istioDir() {
    Path dir = Path.of(value("CNI_OPERATOR_ISTIO"));
    Prerequisites.requireExecutable(dir.resolve("install-cni"), "Istio's install-cni");
    Prerequisites.requireExecutable(dir.resolve("istio-cni"), "Istio's istio-cni plugin");
    return dir;
  }

  /** The whereabouts IPAM plugin built from the Go module proxy at the pinned release. */
  public static Path whereabouts() {
    return Prerequisites.requireExecutable(
        Path.of(value("CNI_OPERATOR_WHEREABOUTS")).resolve("whereabouts"), "whereabouts");
  }

  /** whereabouts' node daemon, {@code ip-control-loop}, of the same release as the plugin. */
  public static Path whereaboutsControlLoop() {
    return Prerequisites.requireExecutable(
        Path.of(value("CNI_OPERATOR_WHEREABOUTS")).resolve("ip-control-loop"),
        "whereabouts' ip-control-loop");
  }

  /** flanneld built from the Go module proxy at the pinned release (the node-cost bench's peer). */
  public static Path flanneld() {
    return Prerequisites.requireExecutable(
        Path.of(value("CNI_OPERATOR_FLANNEL")).resolve("flanneld"), "flanneld");
  }

  /**
   * The CRDs of the pinned whereabouts release that its plugin writes to (IPPool,
   * OverlappingRangeIPReservation), kept beside the binary from the module's {@code doc/crds}.
   */
  public static List<Path> whereaboutsCrds() {
    Path dir = whereabouts().getParent();
    List<Path> crds =
        List.of(
            dir.resolve("whereabouts.cni.cncf.io_ippools.yaml"),
            dir.resolve("whereabouts.cni.cncf.io_overlappingrangeipreservations.yaml"));
    for (Path crd : crds) {
      Prerequisites.require(
          Files.isRegularFile(crd), "whereabouts' CRD " + crd, "run e2e/bin/provision go");
    }
    return crds;
  }

  /**
   * The CRDs of the pinned Prometheus Operator release for the monitoring objects the chart renders
   * (PodMonitor, PrometheusRule, ServiceMonitor), from the module's {@code
   * example/prometheus-operator-crd}.
   */
  public static List<Path> prometheusOperatorCrds() {
    Path dir = Path.of(value("CNI_OPERATOR_PROMETHEUS_OPERATOR_CRDS"));
    List<Path> crds =
        List.of(
            dir.resolve("monitoring.coreos.com_podmonitors.yaml"),
            dir.resolve("monitoring.coreos.com_prometheusrules.yaml"),
            dir.resolve("monitoring.coreos.com_servicemonitors.yaml"));
    for (Path crd : crds) {
      Prerequisites.require(
          Files.isRegularFile(crd),
          "the Prometheus Operator's CRD " + crd,
          "run e2e/bin/provision go");
    }
    return crds;
  }

  /** Prometheus's promtool, from Debian's prometheus package. */
  public static Path promtool() {
    Path onPath = Prerequisites.which("promtool");
    return Prerequisites.requireExecutable(
        onPath != null ? onPath : Path.of("/usr/bin/promtool"),
        "promtool (Debian's prometheus package; e2e/bin/provision installs it as root)");
  }

  /** The reference plugins built from the Go module proxy at the pinned release (CNI 1.1.0). */
  public static Path pluginDir() {
    Path dir = Path.of(value("CNI_OPERATOR_PLUGINS"));
    Prerequisites.requireExecutable(dir.resolve("bridge"), "the reference CNI plugins");
    return dir;
  }

  /** The product images' Debian base tarballs {@code e2e/bin/provision images} builds. */
  public static Path baseImageDir() {
    Path dir = Path.of(value("CNI_OPERATOR_BASE_IMAGES"));
    Path agentBase = dir.resolve("node-agent-base.tar");
    Prerequisites.require(
        java.nio.file.Files.isRegularFile(agentBase),
        "the node agent's base image at " + agentBase,
        "run e2e/bin/provision images (it builds the Debian base images)");
    return dir;
  }

  /** Debian's containernetworking-plugins (CNI up to 1.0.0). */
  public static Path debianPluginDir() {
    Path dir = Path.of("/usr/lib/cni");
    Prerequisites.requireExecutable(
        dir.resolve("bridge"), "Debian's containernetworking-plugins (apt-get install it)");
    return dir;
  }

  private static Map<String, String> env() {
    Map<String, String> values = env;
    if (values == null) {
      synchronized (ToolPaths.class) {
        if (env == null) {
          env = readProvisionEnv();
        }
        values = env;
      }
    }
    return values;
  }

  private static String value(String key) {
    String v = env().get(key);
    if (v == null) {
      throw new IllegalStateException("e2e/bin/provision env printed no " + key);
    }
    return v;
  }

  private static Map<String, String> readProvisionEnv() {
    Path script = repoRoot().resolve("e2e/bin/provision");
    CommandResult r = Commands.run("bash", script.toString(), "env").orThrow(script + " env");
    Map<String, String> values = new HashMap<>();
    for (String line : r.stdout().split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        values.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return Map.copyOf(values);
  }
}
