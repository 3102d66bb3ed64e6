package dev.cnioperator.agent;

import dev.cnioperator.agent.check.AttachmentChecker;
import dev.cnioperator.agent.cleanup.SourceOfTruth;
import dev.cnioperator.agent.cleanup.StaleAttachmentCleaner;
import dev.cnioperator.agent.conflist.RuntimeDropIns;
import dev.cnioperator.agent.dra.ClaimStatusWriter;
import dev.cnioperator.agent.dra.NetworkClaims;
import dev.cnioperator.agent.dra.NodeResourceSlice;
import dev.cnioperator.agent.dra.PreparedClaims;
import dev.cnioperator.agent.host.DiskHostFiles;
import dev.cnioperator.agent.host.DropInStore;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.agent.host.ManifestException;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.agent.kube.AgentEvents;
import dev.cnioperator.agent.kube.CriConnection;
import dev.cnioperator.agent.kube.CriSandboxNetns;
import dev.cnioperator.agent.kube.LazyCriSource;
import dev.cnioperator.agent.kube.PodSource;
import dev.cnioperator.agent.kube.RuntimeCniSupport;
import dev.cnioperator.agent.kube.RuntimeNetworkWatch;
import dev.cnioperator.agent.loop.NetworkLoops;
import dev.cnioperator.agent.loop.NetworkWork;
import dev.cnioperator.agent.network.AttachmentRuntimes;
import dev.cnioperator.agent.network.HostLocalReservations;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.agent.network.SandboxNetns;
import dev.cnioperator.agent.node.AgentReadiness;
import dev.cnioperator.agent.node.NodeAgent;
import dev.cnioperator.agent.node.NodeSpecReader;
import dev.cnioperator.agent.node.NodeStatusBuilder;
import dev.cnioperator.agent.node.NodeSync;
import dev.cnioperator.agent.node.OwnCniNode;
import dev.cnioperator.agent.observe.AgentLiveness;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.agent.observe.ReadinessLog;
import dev.cnioperator.agent.observe.TimedPluginExecutor;
import dev.cnioperator.agent.plugin.PluginInstaller;
import dev.cnioperator.agent.plugin.PluginVersions;
import dev.cnioperator.agent.probe.ProbeDiagnosis;
import dev.cnioperator.agent.probe.ProbeNamespaces;
import dev.cnioperator.agent.probe.RevisionProbe;
import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import dev.cnioperator.cni.runtime.CniRuntime;
import dev.cnioperator.cri.plugin.KubeletPluginServer;
import dev.cnioperator.runtime.client.CallDeadline;
import dev.cnioperator.runtime.health.HealthServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The running agent, wired by hand: every part built once here and closed in reverse order. */
public final class AgentProgram implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AgentProgram.class);

  /** How many plugin runs of CHECK, and of cleanup's DELs, go at once on a node. */
  public static final int PLUGIN_WORKERS = 4;

  /** A CRI Status call is one small local request; often enough to show a reload within seconds. */
  private static final Duration RUNTIME_WATCH_PERIOD = Duration.ofSeconds(5);

  /** fabric8's request timeout: it bounds the wait for a response's headers, not its body. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);

  /**
   * The most any one read or write of the agent may take, the body included, before the pass that
   * made it goes on without it: two attempts of {@link #REQUEST_TIMEOUT} and the back-off between.
   */
  public static final CallDeadline API_CALL_DEADLINE = new CallDeadline(Duration.ofSeconds(35));

  private final KubernetesClient client;
  private final AgentMetrics metrics;
  private final NodeAgent agent;
  private final NetworkLoops networks;
  private final ExecutorService pluginWorkers;
  private final HealthServer server;
  private final CriConnection cri;
  private final RuntimeNetworkWatch runtimeWatch;
  private final KubeletPluginServer kubeletPlugin;

  private AgentProgram(
      KubernetesClient client,
      AgentMetrics metrics,
      NodeAgent agent,
      NetworkLoops networks,
      ExecutorService pluginWorkers,
      HealthServer server,
      CriConnection cri,
      RuntimeNetworkWatch runtimeWatch,
      KubeletPluginServer kubeletPlugin) {
    this.client = client;
    this.kubeletPlugin = kubeletPlugin;
    this.metrics = metrics;
    this.agent = agent;
    this.networks = networks;
    this.pluginWorkers = pluginWorkers;
    this.server = server;
    this.cri = cri;
    this.runtimeWatch = runtimeWatch;
  }

  public static AgentProgram start(AgentSettings s) throws IOException {
    HostPaths paths = s.paths();
    if (paths.multusConfDir().equals(paths.confDir())) {
      LOG.warn(
          "event=multus-conf-dir-is-conf-dir dir={} reason=\"the runtime loads the files of Multus"
              + " networks too, and takes the first for its pod network when it sorts first\"",
          paths.confDir());
    }
    if (s.pluginRoot() != null) {
      checkPluginRoot(s.pluginRoot());
    }
    Clock clock = Clock.systemUTC();
    AgentMetrics metrics = new AgentMetrics(s.pluginTimeout(), clock).withJvmAndProcess();
    AgentLiveness liveness = new AgentLiveness(s.resync(), s.pluginTimeout(), System::nanoTime);
    DiskHostFiles files = new DiskHostFiles();
    PreparedClaims preparedClaims =
        new PreparedClaims(files, paths.stateDir().resolve("prepared-claims.json"));
    ManifestStore store = new ManifestStore(files, paths.manifestFile());
    DropInStore dropIns = new DropInStore(files, paths.dropInsFile());
    CniRuntime runtime = runtime(s, ConfigDirectory.Runtime, metrics, liveness);
    AttachmentRuntimes attachments =
        new AttachmentRuntimes(runtime, runtime(s, ConfigDirectory.Multus, metrics, liveness));
    PluginInstaller installer =
        new PluginInstaller(
            files,
            store,
            paths.binDir(),
            paths.bundledPluginDir(),
            () -> HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build(),
            clock);
    PluginVersions versions =
        new PluginVersions(name -> runtime.getVersionInfo(name).supportedVersions());
    KubernetesClient client = kubernetesClient(s);
    CriConnection cri = runtimeSocket(s.criSocket()).map(CriConnection::new).orElse(null);
    RuntimeCniSupport cniSupport = cri == null ? null : new RuntimeCniSupport(cri, paths.confDir());
    NodeSync sync =
        new NodeSync(
            paths,
            files,
            store,
            installer,
            versions,
            clock,
            cniSupport == null
                ? () ->
                    RuntimeDropIns.unknown(
                        "no --cri-socket, so the runtime's name and version cannot be asked")
                : cniSupport::dropIns);
    if (cri == null) {
      LOG.info(
          "event=readiness-without-runtime reason=\"no --cri-socket: ready once the files are"
              + " written; whether the runtime loaded them is not known\"");
    }
    RuntimeNetworkWatch runtimeWatch = cri == null ? null : new RuntimeNetworkWatch(cri);
    ExecutorService pluginWorkers =
        Executors.newFixedThreadPool(PLUGIN_WORKERS, r -> new Thread(r, "plugin-worker"));
    AgentEvents events = new AgentEvents(client, s.nodeName(), clock, API_CALL_DEADLINE);
    HostLocalReservations hostLocal =
        new HostLocalReservations(HostLocalReservations.DEFAULT_DATA_DIR, paths.cacheDir());
    ClaimStatusWriter claimStatuses =
        ClaimStatusWriter.of(client, s.nodeName(), preparedClaims, attachments, API_CALL_DEADLINE);
    NetworkLoops networks =
        new NetworkLoops(
            NetworkWork.of(
                new RevisionProbe(
                    runtime,
                    hostLocal,
                    new ProbeNamespaces(),
                    ProbeIdentity.forNode(s.nodeName()),
                    clock,
                    new ProbeDiagnosis(),
                    cniSupport == null ? list -> Optional.empty() : cniSupport::refuses),
                new AttachmentChecker(
                    attachments,
                    pluginWorkers,
                    events,
                    cri != null
                        ? new CriSandboxNetns(cri)
                        : s.criSocket() == null
                            ? SandboxNetns.NONE
                            : SandboxNetns.noSocketAt(s.criSocket()),
                    network -> fileOf(files, paths, network),
                    network -> mayHoldDropIns(dropIns, network)),
                new StaleAttachmentCleaner(
                    attachments,
                    hostLocal,
                    sourceOfTruth(s, client, cri),
                    paths.netnsDir(),
                    clock,
                    pluginWorkers,
                    preparedClaims::podsClaiming),
                runtime,
                claimStatuses),
            clock,
            metrics,
            liveness);
    NodeAgent agent =
        new NodeAgent(
            new OwnCniNode(client, s.nodeName(), API_CALL_DEADLINE),
            new NodeSpecReader(),
            sync,
            new NodeStatusBuilder(
                clock,
                runtimeWatch == null ? () -> null : runtimeWatch::latest,
                // Now, not the process's start as /proc tells it: that is computed from the boot
                // time in whole seconds and can fall a second before the container's start, which
                // would make the operator take this agent's reports for an older agent's.
                clock.instant()),
            networks,
            metrics,
            liveness,
            events,
            s.resync(),
            changed -> new NodeResourceSlice(client, s.nodeName(), changed));
    HealthServer server =
        new HealthServer(
            s.listen(),
            liveness,
            new ReadinessLog(
                () ->
                    AgentReadiness.notReady(
                        agent.lastResult(),
                        runtimeWatch != null,
                        runtimeWatch == null ? null : runtimeWatch.latest(),
                        paths.confDir())),
            metrics::scrape);
    server.start();
    // The networks report to the agent from its first reconcile on.
    networks.start(agent::networkReported);
    agent.start();
    if (runtimeWatch != null) {
      runtimeWatch.start(RUNTIME_WATCH_PERIOD, agent::requestStatus);
    }
    LOG.info(
        "event=agent-listening node={} port={} confDir={} binDir={} multusConfDir={}"
            + " pluginRoot={}",
        s.nodeName(),
        server.port(),
        paths.confDir(),
        paths.binDir(),
        paths.multusConfDir(),
        s.pluginRoot() == null ? "/" : s.pluginRoot());
    KubeletPluginServer kubeletPlugin =
        s.kubeletDir() == null
            ? null
            : kubeletPlugin(s, client, agent, preparedClaims, claimStatuses);
    return new AgentProgram(
        client, metrics, agent, networks, pluginWorkers, server, cri, runtimeWatch, kubeletPlugin);
  }

  /**
   * The kubelet's DRA plugin for the networks driver, so that pods that claim a network start (the
   * kubelet prepares each claim through it); null when the kubelet's plugin registry is not there
   * (the chart mounts it with agent.kubeletRootDir).
   */
  private static KubeletPluginServer kubeletPlugin(
      AgentSettings s,
      KubernetesClient client,
      NodeAgent agent,
      PreparedClaims preparedClaims,
      ClaimStatusWriter claimStatuses)
      throws IOException {
    Path registry = s.kubeletDir().resolve("plugins_registry");
    if (!Files.isDirectory(registry)) {
      LOG.warn(
          "event=kubelet-plugin-off dir={} reason=\"the kubelet's plugin registry is not there:"
              + " pods that claim a network cannot start on this node\"",
          registry);
      return null;
    }
    return KubeletPluginServer.start(
        NetworkDevices.DRIVER,
        registry,
        s.kubeletDir().resolve("plugins"),
        new NetworkClaims(
            client, s.nodeName(), agent::publishedDevice, preparedClaims, claimStatuses));
  }

  /**
   * Refuses a plugin root in which plugins could not run as the runtime runs them: not a directory,
   * or one whose {@code /proc} does not show this process under its own PID (a plugin opens {@code
   * /proc/<its pid>/...} there, e.g. to find its network namespace, so the agent must share the
   * node's PID namespace).
   */
  private static void checkPluginRoot(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      throw new IllegalArgumentException(
          "--plugin-root "
              + root
              + " is not a directory: mount the node's root file system there (the chart does,"
              + " with agent.runPluginsInNodeRoot), or leave it unset to run plugins in the agent's"
              + " own root");
    }
    String own = Long.toString(ProcessHandle.current().pid());
    Path self = root.resolve("proc/self");
    String seen;
    try {
      seen = Files.readSymbolicLink(self).toString();
    } catch (IOException e) {
      seen = "nothing (" + e.getMessage() + ")";
    }
    if (!seen.equals(own)) {
      throw new IllegalArgumentException(
          "--plugin-root "
              + root
              + ": "
              + self
              + " shows "
              + seen
              + ", not this process's PID "
              + own
              + ": plugins run there would not find their own /proc entries. Run the agent in the"
              + " node's PID namespace (hostPID: true, as the chart does with"
              + " agent.runPluginsInNodeRoot) and with the node's /proc mounted in that root");
    }
    LOG.info("event=plugins-run-in-node-root root={}", root);
  }

  /**
   * The agent's libcni runtime on the cache of the attachments of {@code directory}'s networks:
   * plugins from the bin dir either way (Multus looks there first too).
   */
  private static CniRuntime runtime(
      AgentSettings s, ConfigDirectory directory, AgentMetrics metrics, AgentLiveness liveness) {
    return new CniRuntime(
        new TimedPluginExecutor(
            s.pluginRoot() == null
                ? new ProcessPluginExecutor()
                : ProcessPluginExecutor.inRoot(s.pluginRoot()),
            metrics,
            liveness),
        List.of(s.paths().binDir()),
        new ResultCache(s.paths().cacheDir(directory)),
        s.pluginTimeout());
  }

  /**
   * The runtime's socket, when one is given and something is there. The agent runs as a pod, so its
   * runtime is up when it starts: nothing at the path then means the runtime listens elsewhere
   * (another runtime than the chart's profile), and the agent works as without the socket rather
   * than wait for a runtime that will never answer there (it would never be ready).
   */
  private static Optional<Path> runtimeSocket(Path socket) {
    if (socket == null) {
      return Optional.empty();
    }
    if (!Files.exists(socket)) {
      LOG.warn(
          "event=cri-socket-absent socket={} reason=\"nothing at the runtime's socket path when"
              + " the agent started: live pods come from the API server, attachments whose netns"
              + " libcni did not cache are reported unchecked, readiness does not wait for the"
              + " runtime; set agent.hostPaths.profile or agent.criSocket.path to the node's"
              + " runtime\"",
          socket);
      return Optional.empty();
    }
    return Optional.of(socket);
  }

  /** The runtime over CRI where its socket is given, otherwise the API server's pods. */
  private static SourceOfTruth sourceOfTruth(
      AgentSettings s, KubernetesClient client, CriConnection cri) {
    if (cri == null) {
      return new PodSource(client, s.nodeName(), API_CALL_DEADLINE);
    }
    LOG.info("event=source-of-truth kind=cri socket={}", s.criSocket());
    return new LazyCriSource(cri);
  }

  private static KubernetesClient kubernetesClient(AgentSettings s) throws IOException {
    Config config =
        s.kubeconfig() != null
            ? Config.fromKubeconfig(Files.readString(s.kubeconfig()))
            : Config.autoConfigure(null);
    // Fail a read fast rather than retry for a minute: the loop comes round again anyway, and a
    // pass stuck in back-off would hold up convergence once the API server is back.
    config.setRequestRetryBackoffLimit(1);
    config.setRequestRetryBackoffInterval(250);
    config.setConnectionTimeout(5_000);
    config.setRequestTimeout((int) REQUEST_TIMEOUT.toMillis());
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** Stops the passes and the endpoints; nothing on the node is undone. */
  @Override
  public void close() {
    if (kubeletPlugin != null) {
      // First: the kubelet then knows at once that no claim can be prepared here.
      kubeletPlugin.close();
    }
    if (runtimeWatch != null) {
      runtimeWatch.close();
    }
    try {
      networks.close();
      pluginWorkers.shutdown();
      agent.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.close();
    metrics.close();
    client.close();
    if (cri != null) {
      cri.close();
    }
  }

  /** The network's file as it is on disk now, or null when it cannot be read. */
  private static byte[] fileOf(DiskHostFiles files, HostPaths paths, ManagedNetwork network) {
    try {
      return files
          .read(
              paths.confDir(network.conflist().directory()).resolve(network.conflist().fileName()))
          .orElse(null);
    } catch (java.io.IOException e) {
      return null;
    }
  }

  /**
   * Whether {@code network}'s entries may be held as drop-ins: recorded so, or the record cannot be
   * read, when which chain a pod was added with is better not judged than judged wrong.
   */
  private static boolean mayHoldDropIns(DropInStore dropIns, String network) {
    try {
      return dropIns.load().of(network).isPresent();
    } catch (ManifestException e) {
      return true;
    }
  }
}
