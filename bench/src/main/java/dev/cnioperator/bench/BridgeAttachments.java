package dev.cnioperator.bench;

import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.node.NodeSpecReader;
import dev.cnioperator.agent.observe.AgentLiveness;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.agent.observe.TimedPluginExecutor;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.NetworkCheck;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.CniArg;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import dev.cnioperator.cni.runtime.CniRuntime;
import dev.cnioperator.cni.tool.CniTool;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Real attachments for the CHECK and cleanup benchmarks: a bridge + host-local network (reference
 * plugins, CNI 1.0.0) on a bridge of its own, with addresses from a subnet of 10.220.0.0/16, added
 * by the cni library into network namespaces made for it. Container ids are cnitool's, derived from
 * the netns path, and the cache is libcni's {@code /var/lib/cni}, so cnitool can CHECK and DEL the
 * same attachments. Close removes everything: attachments, namespaces, bridge, reservations.
 */
final class BridgeAttachments implements AutoCloseable {
  final String network = TestNames.unique("bnet");
  final String bridge = TestNames.unique("bbr");
  final String conflist;
  final Path netconfDir;
  final CniRuntime runtime;
  final ResultCache cache = new ResultCache(ResultCache.DEFAULT_DIR);
  private final ManagedNetwork managed;
  private final List<Live> attachments = new ArrayList<>();

  /** One attachment and the namespace it lives in (null once the namespace is deleted). */
  record Live(Attachment attachment, NetworkNamespace netns) {}

  /** {@code subnet} like {@code 10.220.1.0/24}, large enough for every attachment. */
  BridgeAttachments(String subnet) {
    Prerequisites.requireRoot();
    Prerequisites.requireCommand("ip");
    conflist =
        """
        {"cniVersion": "1.0.0", "name": "%s", "plugins": [
          {"type": "bridge", "bridge": "%s", "isGateway": true,
           "ipam": {"type": "host-local", "ranges": [[{"subnet": "%s"}]]}}]}
        """
            .formatted(network, bridge, subnet);
    try {
      netconfDir = Files.createTempDirectory("bench-netconf");
      Files.writeString(netconfDir.resolve("50-" + network + ".conflist"), conflist);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    runtime =
        new CniRuntime(
            new ProcessPluginExecutor(),
            List.of(ToolPaths.pluginDir()),
            cache,
            Duration.ofSeconds(30));
    NodeNetwork spec =
        new NodeNetwork()
            .setName(network)
            .setFileName("50-" + network + ".conflist")
            .setContent(conflist)
            .setCheck(new NetworkCheck().setEnabled(true))
            .setIpamCleanup(
                new IpamCleanup()
                    .setEnabled(true)
                    .setGracePeriodSeconds(0)
                    .setDryRun(false)
                    .setMaxDeleteFraction(1.0));
    managed = new NodeSpecReader().networks(new CniNodeSpec().setNetworks(List.of(spec))).get(0);
    if (managed.list() == null) {
      throw new IllegalStateException("bench network is invalid: " + managed.invalid());
    }
  }

  /** The agent's default plugin timeout, as the bench runs plugins with. */
  static final Duration PLUGIN_TIMEOUT = Duration.ofSeconds(30);

  /** A runtime wired as AgentProgram wires the agent's: timed process executor, libcni's cache. */
  CniRuntime agentRuntime(AgentMetrics metrics) {
    return new CniRuntime(
        new TimedPluginExecutor(
            new ProcessPluginExecutor(),
            metrics,
            new AgentLiveness(Duration.ofSeconds(60), PLUGIN_TIMEOUT, System::nanoTime)),
        List.of(ToolPaths.pluginDir()),
        cache,
        PLUGIN_TIMEOUT);
  }

  /** Metrics as the agent's, without the JVM's. */
  static AgentMetrics agentMetrics() {
    return new AgentMetrics(PLUGIN_TIMEOUT, Clock.systemUTC());
  }

  /** The network as the agent holds it after reading its CniNode (grace 0, no brake). */
  ManagedNetwork managed() {
    return managed;
  }

  /** Adds {@code count} attachments, each in a new namespace, for pods that do not exist. */
  List<Live> add(int count) {
    List<Live> added = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      NetworkNamespace ns = NetworkNamespace.create("bns");
      String netns = ns.path().toString();
      String containerId = CniTool.containerIdFor(netns);
      Attachment a =
          Attachment.of(containerId, netns, "eth0")
              .withCniArgs(
                  List.of(
                      // As container runtimes pass them: plugins ignore the Kubernetes keys.
                      new CniArg("IgnoreUnknown", "1"),
                      new CniArg("K8S_POD_NAMESPACE", "bench"),
                      new CniArg("K8S_POD_NAME", ns.name())));
      Live live = new Live(a, ns);
      attachments.add(live);
      runtime.addNetworkList(managed.list(), a);
      added.add(live);
    }
    return added;
  }

  /** Deletes the namespaces: the pods are gone, their reservations stay behind. */
  void killSandboxes() {
    attachments.forEach(l -> l.netns().close());
  }

  /** host-local's reservations of this network (one file per address). */
  int reservations() {
    Path dir = ResultCache.DEFAULT_DIR.resolve("networks").resolve(network);
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (var files = Files.list(dir)) {
      return (int)
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> Character.isDigit(n.charAt(0)))
              .count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code cnitool <verb> <network> <netns>} with this network's conf dir and the plugins. */
  CommandResult cnitool(String verb, Live live) {
    return Commands.run(
        List.of(
            ToolPaths.cnitool().toString(), verb, network, live.attachment().netns().toString()),
        Map.of("NETCONFPATH", netconfDir.toString(), "CNI_PATH", ToolPaths.pluginDir().toString()),
        null,
        Duration.ofSeconds(30));
  }

  /** DELs what is left, removes namespaces, the bridge, the reservations and the conf dir. */
  @Override
  public void close() {
    for (Live l : attachments) {
      try {
        runtime.delNetworkList(managed.list(), l.attachment());
      } catch (RuntimeException e) {
        // Best effort: the reservations directory goes below anyway.
      }
      l.netns().close();
    }
    attachments.clear();
    Commands.run("ip", "link", "del", bridge);
    BenchCluster.deleteTree(ResultCache.DEFAULT_DIR.resolve("networks").resolve(network));
    for (var entry : cache.list(network)) {
      cache.remove(network, entry.containerId(), entry.ifName());
    }
    BenchCluster.deleteTree(netconfDir);
  }

  /** Forgets attachments already cleaned up by the code under measurement (namespaces gone). */
  void forgetAll() {
    attachments.forEach(l -> l.netns().close());
    attachments.clear();
  }
}
