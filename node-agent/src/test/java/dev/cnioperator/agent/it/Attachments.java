package dev.cnioperator.agent.it;

import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.CniArg;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import dev.cnioperator.cni.runtime.CniRuntime;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Makes attachments the way a container runtime would, with the cni library, for pods. */
final class Attachments {
  final CniRuntime runtime;
  final NetworkConfigList list;

  Attachments(Path binDir, Path cacheDir, String conflist) {
    this.runtime =
        new CniRuntime(
            new ProcessPluginExecutor(),
            List.of(binDir),
            new ResultCache(cacheDir),
            Duration.ofSeconds(30));
    this.list = NetworkConfigList.parse(conflist.getBytes(StandardCharsets.UTF_8));
  }

  /** The CNI_ARGS a kubelet-driven runtime passes for {@code pod}. */
  static List<CniArg> podArgs(Pod pod) {
    return List.of(
        new CniArg("IgnoreUnknown", "1"),
        new CniArg("K8S_POD_NAMESPACE", pod.getMetadata().getNamespace()),
        new CniArg("K8S_POD_NAME", pod.getMetadata().getName()),
        new CniArg("K8S_POD_INFRA_CONTAINER_ID", containerId(pod)),
        new CniArg("K8S_POD_UID", pod.getMetadata().getUid()));
  }

  /**
   * libcni's cnitool running {@code verb} (add, check, del) of {@code network} for {@code pod} in
   * {@code ns}, reading the configuration from {@code confDir} and plugins from {@code binDir}, as
   * a runtime would: an independent peer of the agent's own library.
   */
  static CommandResult cnitool(
      String verb, String network, NetworkNamespace ns, Pod pod, Path confDir, Path binDir) {
    String args =
        podArgs(pod).stream().map(a -> a.key() + "=" + a.value()).collect(Collectors.joining(";"));
    return Commands.run(
        List.of(ToolPaths.cnitool().toString(), verb, network, ns.path().toString()),
        Map.of("NETCONFPATH", confDir.toString(), "CNI_PATH", binDir.toString(), "CNI_ARGS", args),
        null,
        Duration.ofMinutes(2));
  }

  static String containerId(Pod pod) {
    return "ctr-" + pod.getMetadata().getName();
  }

  Attachment attachment(Pod pod, NetworkNamespace ns) {
    return new Attachment(
        containerId(pod), ns.path().toString(), "eth0", podArgs(pod), java.util.Map.of());
  }

  void add(Pod pod, NetworkNamespace ns) {
    runtime.addNetworkList(list, attachment(pod, ns));
  }

  /** DEL, ignoring failures: for cleanup after a test. */
  void delQuietly(Pod pod, NetworkNamespace ns) {
    try {
      runtime.delNetworkList(list, attachment(pod, ns));
    } catch (RuntimeException e) {
      // already gone
    }
  }
}
