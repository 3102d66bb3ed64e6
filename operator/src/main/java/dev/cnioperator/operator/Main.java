package dev.cnioperator.operator;

import dev.cnioperator.operator.liveness.LoopLiveness;
import dev.cnioperator.operator.taint.PodNetworkTaintSettings;
import dev.cnioperator.runtime.health.HealthServer;
import dev.cnioperator.runtime.health.JvmMeters;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The cni-operator program: reads its flags, connects to the cluster and runs until stopped. */
@Command(
    name = "cni-operator",
    mixinStandardHelpOptions = true,
    subcommands = {DeleteNetworksCommand.class, RemoveTaintCommand.class},
    description = {
      "Validates and renders CniNetworks and writes each node's CniNode spec.",
      "Every option can also be given by the environment variable shown in its description."
    })
public final class Main implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(Main.class);

  /** How long SIGTERM waits for the operator to close (within the pod's 30 s grace period). */
  private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:KUBECONFIG}",
      description =
          "Kubeconfig file (env KUBECONFIG; default: the pod's ServiceAccount, else"
              + " ~/.kube/config).")
  Path kubeconfig;

  @Option(
      names = "--namespace",
      defaultValue = "${env:CNI_OPERATOR_NAMESPACE:-${env:POD_NAMESPACE:-default}}",
      description =
          "Namespace of the leader-election Lease (env CNI_OPERATOR_NAMESPACE or"
              + " POD_NAMESPACE; default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--leader-election",
      negatable = true,
      defaultValue = "${env:CNI_OPERATOR_LEADER_ELECTION:-true}",
      fallbackValue = "true",
      description =
          "Elect a leader through a Lease so that several replicas can run (env"
              + " CNI_OPERATOR_LEADER_ELECTION; default: ${DEFAULT-VALUE}).")
  boolean leaderElection;

  @Option(
      names = "--identity",
      defaultValue = "${env:POD_NAME}",
      description = "This replica's name in the Lease (env POD_NAME; default: the host name).")
  String identity;

  @Option(
      names = "--metrics-port",
      defaultValue = "${env:CNI_OPERATOR_METRICS_PORT:-8080}",
      description =
          "Port of /metrics, /healthz and /readyz (env CNI_OPERATOR_METRICS_PORT; default:"
              + " ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(
      names = "--metrics-bind-address",
      defaultValue = "${env:CNI_OPERATOR_METRICS_BIND_ADDRESS:-*}",
      description =
          "IP address of this host that --metrics-port listens on; * is every address, IPv4 and"
              + " IPv6 (env CNI_OPERATOR_METRICS_BIND_ADDRESS; default: ${DEFAULT-VALUE}).")
  String metricsBindAddress;

  @Option(
      names = "--stuck-reconcile-after",
      defaultValue = "${env:CNI_OPERATOR_STUCK_RECONCILE_AFTER:-5m}",
      converter = DurationConverter.class,
      description =
          "A reconcile of one resource still running after this means the operator is stuck:"
              + " /healthz answers 503 naming it and the kubelet restarts the pod, as 5m or PT5M"
              + " (env CNI_OPERATOR_STUCK_RECONCILE_AFTER; default: ${DEFAULT-VALUE}).")
  Duration stuckReconcileAfter;

  @Option(
      names = "--finalizer-timeout",
      defaultValue = "${env:CNI_OPERATOR_FINALIZER_TIMEOUT:-60s}",
      converter = DurationConverter.class,
      description =
          "How long a deleted CniNetwork waits for node agents to report its files removed, as"
              + " 60s, 2m or PT60S (env CNI_OPERATOR_FINALIZER_TIMEOUT; default: ${DEFAULT-VALUE}).")
  Duration finalizerTimeout;

  @Option(
      names = "--lease-duration",
      defaultValue = "${env:CNI_OPERATOR_LEASE_DURATION:-15s}",
      converter = DurationConverter.class,
      description =
          "How long a standby waits for a Lease not renewed before it takes over: a dead leader"
              + " is replaced within this plus --lease-retry-period (env"
              + " CNI_OPERATOR_LEASE_DURATION; default: ${DEFAULT-VALUE}).")
  Duration leaseDuration;

  @Option(
      names = "--lease-renew-deadline",
      defaultValue = "${env:CNI_OPERATOR_LEASE_RENEW_DEADLINE:-10s}",
      converter = DurationConverter.class,
      description =
          "How long the leader keeps trying to renew before it stops leading; shorter than"
              + " --lease-duration (env CNI_OPERATOR_LEASE_RENEW_DEADLINE; default:"
              + " ${DEFAULT-VALUE}).")
  Duration renewDeadline;

  @Option(
      names = "--lease-retry-period",
      defaultValue = "${env:CNI_OPERATOR_LEASE_RETRY_PERIOD:-2s}",
      converter = DurationConverter.class,
      description =
          "How often the leader renews the Lease (3600/period writes an hour) and a standby"
              + " looks at it (env CNI_OPERATOR_LEASE_RETRY_PERIOD; default: ${DEFAULT-VALUE}).")
  Duration retryPeriod;

  @Option(
      names = "--pod-network-taint",
      defaultValue = "${env:CNI_OPERATOR_POD_NETWORK_TAINT}",
      description =
          "Keep a taint of this key (effect NoSchedule) on each node where the agent runs until"
              + " its agent, since it last started, has proven the node's pod network with every"
              + " chain declared onto it (CniNode PodNetworkReady), and put it back when the agent"
              + " is not ready; register nodes with it (kubelet --register-with-taints) to hold"
              + " new pods back after a node starts (env CNI_OPERATOR_POD_NETWORK_TAINT; default:"
              + " unset, no taint).")
  String podNetworkTaint;

  @Option(
      names = "--remove-pod-network-taint",
      defaultValue = "${env:CNI_OPERATOR_REMOVE_POD_NETWORK_TAINT}",
      description =
          "The pod network taint turned off: take a taint of this key (effect NoSchedule) off"
              + " every node that carries it, now and whenever one appears (a node registered"
              + " with it), instead of keeping it; not with --pod-network-taint (env"
              + " CNI_OPERATOR_REMOVE_POD_NETWORK_TAINT; default: unset, the operator leaves"
              + " Nodes' taints alone).")
  String removePodNetworkTaint;

  @Option(
      names = "--agent-pod-selector",
      defaultValue = "${env:CNI_OPERATOR_AGENT_POD_SELECTOR:-app.kubernetes.io/component=agent}",
      description =
          "Labels of the agent pods in --namespace, for --pod-network-taint (env"
              + " CNI_OPERATOR_AGENT_POD_SELECTOR; default: ${DEFAULT-VALUE}).")
  String agentPodSelector;

  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    OperatorSettings.LeaseTimings lease;
    LoopLiveness.Limits liveness;
    InetSocketAddress metricsAddress;
    PodNetworkTaintSettings taint;
    try {
      taint = podNetworkTaint(podNetworkTaint, removePodNetworkTaint, namespace, agentPodSelector);
      lease = new OperatorSettings.LeaseTimings(leaseDuration, renewDeadline, retryPeriod);
      liveness =
          new LoopLiveness.Limits(
              stuckReconcileAfter, LoopLiveness.Limits.DEFAULT.unhealthySources());
      metricsAddress = metricsAddress(metricsBindAddress, metricsPort);
    } catch (IllegalArgumentException e) {
      System.err.println("cni-operator: " + e.getMessage());
      return 2;
    }
    OperatorSettings settings =
        new OperatorSettings(
            namespace, leaderElection, identity(), finalizerTimeout, lease, liveness, taint);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry
        .config()
        .meterFilter(JosdkMeterTags.ALWAYS_WITH_GROUP)
        .meterFilter(JvmMeters.BASE_UNITS);
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    // The JVM halts once its shutdown hooks return, whatever the main thread is doing: the hook
    // waits until the operator is closed, so a leader stopped with SIGTERM (a pod deletion, a
    // rolling update) releases the Lease and the other replica leads at once, not a lease later.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop.countDown();
                  awaitQuietly(stopped, SHUTDOWN_TIMEOUT);
                },
                "stop"));
    try (JvmMeters jvm = new JvmMeters(registry);
        KubernetesClient client = OperatorClients.create(config());
        CniOperator operator = new CniOperator(client, settings, registry);
        HealthServer health =
            new HealthServer(
                metricsAddress, operator::notLive, operator::notReady, registry::scrape)) {
      health.start();
      operator.start();
      log.info(
          "event=started namespace={} leaderElection={} lease={} identity={} metricsAddress={}"
              + " metricsPort={} server={} podNetworkTaint={}",
          settings.namespace(),
          settings.leaderElection(),
          settings.lease(),
          settings.identity(),
          metricsBindAddress,
          health.port(),
          client.getMasterUrl(),
          settings.podNetworkTaint() == null
              ? "none"
              : (settings.podNetworkTaint().kept() ? "kept:" : "removed:")
                  + settings.podNetworkTaint().key());
      stop.await();
      log.info("event=stopping identity={}", settings.identity());
    } catch (BindException e) {
      System.err.println(
          "cni-operator: cannot listen on "
              + metricsBindAddress
              + " port "
              + metricsPort
              + ": "
              + e.getMessage()
              + " (--metrics-bind-address, --metrics-port)");
      return 2;
    } finally {
      // Logged before the hook is let go: the JVM halts as soon as the hook returns.
      log.info("event=stopped identity={}", settings.identity());
      stopped.countDown();
    }
    return 0;
  }

  /** The taint {@code --pod-network-taint} keeps or {@code --remove-pod-network-taint} removes. */
  static PodNetworkTaintSettings podNetworkTaint(
      String kept, String removed, String namespace, String agentSelector) {
    boolean keep = kept != null && !kept.isEmpty();
    boolean remove = removed != null && !removed.isEmpty();
    if (keep && remove) {
      throw new IllegalArgumentException(
          "--pod-network-taint="
              + kept
              + " and --remove-pod-network-taint="
              + removed
              + " are given together: the operator either keeps the taint or takes it off");
    }
    if (keep) {
      return PodNetworkTaintSettings.kept(kept, namespace, agentSelector);
    }
    return remove ? PodNetworkTaintSettings.removed(removed) : null;
  }

  /**
   * Where /metrics, /healthz and /readyz listen: {@code *} (the wildcard address, which takes IPv4
   * and IPv6) or an IP literal. A host name is refused rather than looked up.
   */
  static InetSocketAddress metricsAddress(String address, int port) {
    String a = address.trim();
    if (a.equals("*")) {
      return new InetSocketAddress(port);
    }
    boolean v4 = a.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    boolean v6 = a.contains(":") && a.matches("\\[?[0-9A-Fa-f:.]+]?");
    if (v4 && Arrays.stream(a.split("\\.")).allMatch(octet -> Integer.parseInt(octet) <= 255)
        || v6) {
      try {
        // A literal: no name is looked up.
        return new InetSocketAddress(InetAddress.getByName(a), port);
      } catch (UnknownHostException e) {
        // Not a valid IPv6 literal after all; refused below.
      }
    }
    throw new IllegalArgumentException(
        "--metrics-bind-address must be * or an IP address of this host, got '" + address + "'");
  }

  private static void awaitQuietly(CountDownLatch latch, Duration timeout) {
    try {
      latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  Config config() throws java.io.IOException {
    if (kubeconfig != null) {
      return Config.fromKubeconfig(null, Files.readString(kubeconfig), kubeconfig.toString());
    }
    return Config.autoConfigure(null);
  }

  private String identity() throws UnknownHostException {
    return identity != null && !identity.isBlank()
        ? identity
        : InetAddress.getLocalHost().getHostName();
  }

  /** "60s", "2m", "1h" or ISO-8601 "PT60S". */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.trim();
      if (v.toUpperCase().startsWith("P")) {
        return Duration.parse(v);
      }
      return Duration.parse("PT" + v.toUpperCase());
    }
  }
}
