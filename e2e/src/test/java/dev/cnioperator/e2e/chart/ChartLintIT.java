package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.PodAntiAffinity;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The chart through the real helm CLI: {@code helm lint} is clean, {@code helm template} renders
 * the hardened workloads and least-privilege RBAC the design asks for, and the values schema
 * refuses bad values naming the value.
 */
class ChartLintIT {
  private static Helm helm;

  @BeforeAll
  static void provisionedHelm() {
    helm = Helm.provisioned();
  }

  @Test
  void lintIsCleanWithDefaultValues() {
    assertLintClean();
  }

  @Test
  void lintIsCleanWithTheK3sProfileAndTheCriSocket() {
    assertLintClean(
        "--set", "agent.hostPaths.profile=k3s", "--set", "agent.criSocket.enabled=true");
  }

  @Test
  void operatorRunsOneLeaderElectedReplicaHardenedAndProbed() {
    Deployment deployment = RenderedChart.render(helm).single("Deployment", Deployment.class);
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container operator = onlyContainer(pod);

    assertThat(deployment.getSpec().getReplicas()).isEqualTo(1);
    assertThat(operator.getArgs())
        .contains(
            "--leader-election",
            "--lease-duration=15s",
            "--lease-renew-deadline=10s",
            "--lease-retry-period=2s",
            "--namespace=$(NAMESPACE)",
            "--metrics-port=8080",
            "--metrics-bind-address=*");
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(operator.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(operator.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(operator.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(operator.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(operator.getResources().getLimits()).containsKey("memory");
    assertThat(operator.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(operator.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(operator.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(operator.getPorts())
        .anySatisfy(p -> assertThat(p.getName()).isEqualTo("http-metrics"));
    assertThat(operator.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("NAMESPACE");
              assertThat(e.getValueFrom().getFieldRef().getFieldPath())
                  .isEqualTo("metadata.namespace");
            });
  }

  @Test
  void oneReplicaFitsAOneNodeCluster() {
    RenderedChart chart = RenderedChart.render(helm);
    Deployment deployment = chart.single("Deployment", Deployment.class);

    // The old pod goes before its replacement starts: a surge pod on the same node could never bind
    // the host port, so a rollout on one node would never finish. Recreate, not a RollingUpdate
    // with maxUnavailable 1, under which helm --wait counts 0 of 1 ready replicas as enough.
    assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("Recreate");
    assertThat(deployment.getSpec().getStrategy().getRollingUpdate()).isNull();
    // minAvailable 1 over one replica would refuse every eviction, so no drain could finish.
    assertThat(chart.ofKind("PodDisruptionBudget")).isEmpty();
    assertThat(deployment.getSpec().getTemplate().getSpec().getAffinity()).isNull();
  }

  @Test
  void twoReplicasGetABudgetAndANodeEachOnTheHostNetwork() {
    RenderedChart chart = RenderedChart.render(helm, "--set", "operator.replicas=2");
    Deployment deployment = chart.single("Deployment", Deployment.class);
    PodAntiAffinity antiAffinity =
        deployment.getSpec().getTemplate().getSpec().getAffinity().getPodAntiAffinity();

    assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
    // One at a time, never a surge pod that could not bind the port on its node.
    assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(deployment.getSpec().getStrategy().getRollingUpdate().getMaxSurge().getIntVal())
        .isZero();
    assertThat(
            deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
        .isEqualTo(1);
    assertThat(chart.ofKind("PodDisruptionBudget")).hasSize(1);
    assertThat(chart.ofKind("PodDisruptionBudget").get(0).at("/spec/minAvailable").asInt())
        .isEqualTo(1);
    assertThat(antiAffinity.getPreferredDuringSchedulingIgnoredDuringExecution()).isEmpty();
    assertThat(antiAffinity.getRequiredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .satisfies(
            term -> {
              assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
              assertThat(term.getLabelSelector().getMatchLabels())
                  .containsEntry("app.kubernetes.io/component", "operator");
            });

    PodAntiAffinity offTheHostNetwork =
        RenderedChart.render(
                helm, "--set", "operator.replicas=2", "--set", "operator.hostNetwork=false")
            .single("Deployment", Deployment.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getAffinity()
            .getPodAntiAffinity();
    assertThat(offTheHostNetwork.getRequiredDuringSchedulingIgnoredDuringExecution()).isEmpty();
    assertThat(offTheHostNetwork.getPreferredDuringSchedulingIgnoredDuringExecution()).hasSize(1);
  }

  @Test
  void oneReplicaWithoutLeaderElectionTurnsItOff() {
    Deployment deployment =
        RenderedChart.render(
                helm,
                "--set",
                "operator.replicas=1",
                "--set",
                "operator.leaderElection.enabled=false")
            .single("Deployment", Deployment.class);

    assertThat(deployment.getSpec().getReplicas()).isEqualTo(1);
    assertThat(onlyContainer(deployment.getSpec().getTemplate().getSpec()).getArgs())
        .contains("--no-leader-election")
        .doesNotContain("--leader-election")
        .noneMatch(a -> a.startsWith("--lease-"));
  }

  @Test
  void leaseTimingsReachTheOperatorAndTimingsTheElectorWouldRefuseAreRefusedNamingThem() {
    Deployment deployment =
        RenderedChart.render(
                helm,
                "--set",
                "operator.leaderElection.leaseDurationSeconds=60",
                "--set",
                "operator.leaderElection.renewDeadlineSeconds=40",
                "--set",
                "operator.leaderElection.retryPeriodSeconds=10")
            .single("Deployment", Deployment.class);
    assertThat(onlyContainer(deployment.getSpec().getTemplate().getSpec()).getArgs())
        .contains("--lease-duration=60s", "--lease-renew-deadline=40s", "--lease-retry-period=10s");

    CommandResult longDeadline =
        helm.template("--set", "operator.leaderElection.renewDeadlineSeconds=15");
    assertThat(longDeadline.exitCode()).isNotZero();
    assertThat(longDeadline.stderr())
        .contains("leaseDurationSeconds (15) must be longer than renewDeadlineSeconds (15)");
    CommandResult slowRetry =
        helm.template("--set", "operator.leaderElection.retryPeriodSeconds=9");
    assertThat(slowRetry.exitCode()).isNotZero();
    assertThat(slowRetry.stderr())
        .contains("renewDeadlineSeconds (10) must be more than 1.2 times retryPeriodSeconds (9)");
  }

  @Test
  void logLevelReachesTheJvmOfEachProgram() {
    RenderedChart chart =
        RenderedChart.render(
            helm, "--set", "agent.logLevel=debug", "--set", "operator.logLevel=warn");
    Container agent =
        onlyContainer(chart.single("DaemonSet", DaemonSet.class).getSpec().getTemplate().getSpec());
    Container operator =
        onlyContainer(
            chart.single("Deployment", Deployment.class).getSpec().getTemplate().getSpec());

    assertThat(env(agent, "JAVA_TOOL_OPTIONS"))
        .endsWith("-Dorg.slf4j.simpleLogger.defaultLogLevel=debug");
    assertThat(env(operator, "JAVA_TOOL_OPTIONS"))
        .endsWith("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
  }

  @Test
  void agentIsAPrivilegedHostNetworkDaemonSetThatToleratesEveryTaint() {
    DaemonSet daemonSet = RenderedChart.render(helm).single("DaemonSet", DaemonSet.class);
    PodSpec pod = daemonSet.getSpec().getTemplate().getSpec();
    Container agent = onlyContainer(pod);

    assertThat(agent.getSecurityContext().getPrivileged()).isTrue();
    assertThat(agent.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(agent.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(pod.getHostNetwork()).isTrue();
    assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
    // One toleration without a key matches every taint: node.kubernetes.io/not-ready,
    // node.kubernetes.io/network-unavailable, NoSchedule and NoExecute alike.
    assertThat(pod.getTolerations())
        .anySatisfy(
            t -> {
              assertThat(t.getKey()).isNull();
              assertThat(t.getOperator()).isEqualTo("Exists");
              assertThat(t.getEffect()).isNull();
            });
    assertThat(daemonSet.getSpec().getUpdateStrategy().getType()).isEqualTo("RollingUpdate");
    assertThat(
            daemonSet
                .getSpec()
                .getUpdateStrategy()
                .getRollingUpdate()
                .getMaxUnavailable()
                .getIntVal())
        .isEqualTo(1);
    assertThat(agent.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("NODE_NAME");
              assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
            });
    assertThat(env(agent, "JAVA_TOOL_OPTIONS"))
        .contains("-XX:+UseSerialGC", "-Xss256k", "-Xmx")
        .contains("-XX:TieredStopAtLevel=1", "-Xshare:auto");
    assertThat(hostPathsByMount(pod, agent))
        .containsEntry("/etc/cni/net.d", "/etc/cni/net.d")
        .containsEntry("/opt/cni/bin", "/opt/cni/bin")
        .containsEntry("/var/lib/cni", "/var/lib/cni")
        .containsEntry("/var/run/netns", "/var/run/netns")
        .containsEntry("/var/lib/cni-operator", "/var/lib/cni-operator")
        // Multus's conf dir through /etc/cni, which the conf dir's volume makes anyway.
        .containsEntry("/etc/cni", "/etc/cni")
        .containsEntry("/run/containerd", "/run/containerd")
        // Where tuning keeps its backups and the dhcp daemon its socket, as for the runtime's runs.
        .containsEntry("/run/cni", "/run/cni");
    assertThat(hostPathVolume(pod, agent, "/run/cni").getType()).isEqualTo("DirectoryOrCreate");
    // No volume makes a Multus dir on a node without Multus (issue 52): the agent makes its conf
    // dir when it writes there, and sees its cache, once Multus made it, through /var/lib/cni.
    assertThat(pod.getVolumes())
        .map(v -> v.getHostPath() == null ? "" : v.getHostPath().getPath())
        .noneMatch(path -> path.contains("multus"));
    assertThat(hostPathVolume(pod, agent, "/etc/cni").getType()).isEqualTo("DirectoryOrCreate");
    assertThat(agent.getVolumeMounts())
        .map(VolumeMount::getMountPath)
        .as("/etc/cni before the conf dir inside it, for a runtime that mounts in the given order")
        .containsSubsequence("/etc/cni", "/etc/cni/net.d");
    // Plugins run chrooted into the node's root, as the runtime runs them; the probes' namespaces
    // the agent makes must reach that root, so the netns dir propagates both ways.
    assertThat(agent.getArgs()).contains("--plugin-root=/node-root");
    assertThat(pod.getHostPID()).as("a plugin reads its /proc/<pid> in the node's /proc").isTrue();
    assertThat(hostPathsByMount(pod, agent)).containsEntry("/node-root", "/");
    assertThat(mount(agent, "/node-root").getReadOnly()).isNotEqualTo(true);
    assertThat(mount(agent, "/node-root").getMountPropagation()).isEqualTo("HostToContainer");
    assertThat(mount(agent, "/var/run/netns").getMountPropagation()).isEqualTo("Bidirectional");
    // containerd's socket by default: the netns of attachments containerd 1.6 and 1.7 cache none
    // for comes from the runtime; a node whose runtime is elsewhere still starts the pod.
    assertThat(mount(agent, "/run/containerd").getReadOnly()).isTrue();
    assertThat(hostPathVolume(pod, agent, "/run/containerd").getType())
        .isEqualTo("DirectoryOrCreate");
    assertThat(agent.getArgs())
        .contains("--conf-dir=/etc/cni/net.d", "--bin-dir=/opt/cni/bin")
        .contains(
            "--multus-conf-dir=/etc/cni/multus/net.d", "--multus-cache-dir=/var/lib/cni/multus")
        .contains("run", "--listen=0.0.0.0:9464")
        .contains("--cri-socket=/run/containerd/containerd.sock");
  }

  /**
   * Issue 55: the agent serves the kubelet's DRA plugin where the kubelet looks (its registry and
   * the driver's plugin dir, at the node's paths, under agent.kubeletPlugin.rootDir), or nothing.
   */
  @Test
  void theKubeletPluginDirsAreMountedAtTheNodesPathsUnderTheKubeletsRootDir() {
    for (String root : List.of("/var/lib/kubelet", "/var/snap/microk8s/common/var/lib/kubelet")) {
      PodSpec pod =
          RenderedChart.render(helm, "--set", "agent.kubeletPlugin.rootDir=" + root)
              .single("DaemonSet", DaemonSet.class)
              .getSpec()
              .getTemplate()
              .getSpec();
      Container agent = onlyContainer(pod);
      assertThat(agent.getArgs()).contains("--kubelet-dir=" + root);
      for (String dir :
          List.of(root + "/plugins_registry", root + "/plugins/networks.cnioperator.dev")) {
        assertThat(hostPathsByMount(pod, agent)).containsEntry(dir, dir);
        assertThat(hostPathVolume(pod, agent, dir).getType()).isEqualTo("DirectoryOrCreate");
      }
    }
    PodSpec off =
        RenderedChart.render(helm, "--set", "agent.kubeletPlugin.enabled=false")
            .single("DaemonSet", DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec();
    assertThat(onlyContainer(off).getArgs()).noneMatch(a -> a.startsWith("--kubelet-dir"));
    assertThat(hostPathsByMount(off, onlyContainer(off)).keySet())
        .noneMatch(p -> p.contains("kubelet"));
  }

  @Test
  void pluginsRunInTheAgentsImageWhenTheNodeRootIsTurnedOff() {
    PodSpec pod =
        RenderedChart.render(helm, "--set", "agent.runPluginsInNodeRoot=false")
            .single("DaemonSet", DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec();
    Container agent = onlyContainer(pod);
    assertThat(agent.getArgs()).noneMatch(a -> a.startsWith("--plugin-root"));
    assertThat(pod.getHostPID()).isFalse();
    assertThat(hostPathsByMount(pod, agent)).doesNotContainKey("/node-root");
    assertThat(mount(agent, "/var/run/netns").getMountPropagation()).isEqualTo("HostToContainer");
  }

  @Test
  void k3sProfileMovesTheConfAndBinDirsAndMountsItsCriSocketsDirectoryReadOnly() {
    DaemonSet daemonSet =
        RenderedChart.render(
                helm,
                "--set",
                "agent.hostPaths.profile=k3s",
                "--set",
                "agent.criSocket.enabled=true")
            .single("DaemonSet", DaemonSet.class);
    PodSpec pod = daemonSet.getSpec().getTemplate().getSpec();
    Container agent = onlyContainer(pod);

    assertThat(hostPathsByMount(pod, agent))
        .containsEntry(
            "/var/lib/rancher/k3s/agent/etc/cni/net.d", "/var/lib/rancher/k3s/agent/etc/cni/net.d")
        .containsEntry("/var/lib/rancher/k3s/data/cni", "/var/lib/rancher/k3s/data/cni")
        .containsEntry("/run/k3s/containerd", "/run/k3s/containerd");
    // The directory, so the agent reaches a runtime that restarted and made its socket anew.
    assertThat(mount(agent, "/run/k3s/containerd").getReadOnly()).isTrue();
    assertThat(mount(agent, "/run/k3s/containerd").getMountPropagation())
        .isEqualTo("HostToContainer");
    assertThat(agent.getArgs())
        .contains(
            "--conf-dir=/var/lib/rancher/k3s/agent/etc/cni/net.d",
            "--bin-dir=/var/lib/rancher/k3s/data/cni",
            "--cri-socket=/run/k3s/containerd/containerd.sock");
  }

  @Test
  void openshiftProfileGivesTheAgentCrioDirsAsOpenShiftSetsThemAndMountsItsSocketsDirectory() {
    PodSpec pod =
        RenderedChart.render(helm, "--set", "agent.hostPaths.profile=openshift")
            .single("DaemonSet", DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec();
    Container agent = onlyContainer(pod);

    assertThat(hostPathsByMount(pod, agent))
        .containsEntry("/etc/kubernetes/cni/net.d", "/etc/kubernetes/cni/net.d")
        .containsEntry("/var/lib/cni/bin", "/var/lib/cni/bin")
        .containsEntry("/var/run/crio", "/var/run/crio")
        // Nothing of containerd's or CRI-O's stock layout is made on an OpenShift node.
        .doesNotContainKeys("/etc/cni/net.d", "/opt/cni/bin", "/run/containerd");
    assertThat(mount(agent, "/var/run/crio").getReadOnly()).isTrue();
    assertThat(mount(agent, "/var/run/crio").getMountPropagation()).isEqualTo("HostToContainer");
    assertThat(agent.getArgs())
        .contains(
            "--conf-dir=/etc/kubernetes/cni/net.d",
            "--bin-dir=/var/lib/cni/bin",
            "--cri-socket=/var/run/crio/crio.sock",
            // The cluster-network-operator's Multus keeps Multus's defaults (values.yaml).
            "--multus-conf-dir=/etc/cni/multus/net.d",
            "--multus-cache-dir=/var/lib/cni/multus");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "containerd|/etc/cni/net.d|/opt/cni/bin|/run/containerd/containerd.sock|/etc/cni",
        "generic|/etc/cni/net.d|/opt/cni/bin|/run/containerd/containerd.sock|/etc/cni",
        // The conf dir is elsewhere, so nothing else makes /etc/cni: Multus's conf dir itself.
        "k3s|/var/lib/rancher/k3s/agent/etc/cni/net.d|/var/lib/rancher/k3s/data/cni"
            + "|/run/k3s/containerd/containerd.sock|/etc/cni/multus/net.d",
        "k3s-no-flannel|/etc/cni/net.d|/opt/cni/bin|/run/k3s/containerd/containerd.sock|/etc/cni",
        "rke2|/etc/cni/net.d|/opt/cni/bin|/run/k3s/containerd/containerd.sock|/etc/cni",
        "crio|/etc/cni/net.d|/opt/cni/bin|/var/run/crio/crio.sock|/etc/cni",
        // The conf dir is under /etc/kubernetes: Multus's conf dir is mounted itself, as for k3s.
        "openshift|/etc/kubernetes/cni/net.d|/var/lib/cni/bin|/var/run/crio/crio.sock"
            + "|/etc/cni/multus/net.d",
      })
  void eachProfileGivesTheAgentItsRuntimesDirsAndSocket(
      String profile, String confDir, String binDir, String socket, String multusMount) {
    PodSpec pod =
        RenderedChart.render(helm, "--set", "agent.hostPaths.profile=" + profile)
            .single("DaemonSet", DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec();
    Container agent = onlyContainer(pod);
    String socketDir = socket.substring(0, socket.lastIndexOf('/'));

    assertThat(agent.getArgs())
        .contains("--conf-dir=" + confDir, "--bin-dir=" + binDir, "--cri-socket=" + socket)
        // Multus keeps its own defaults on every one of them (values.yaml says why).
        .contains(
            "--multus-conf-dir=/etc/cni/multus/net.d", "--multus-cache-dir=/var/lib/cni/multus");
    assertThat(hostPathsByMount(pod, agent))
        .containsEntry(confDir, confDir)
        .containsEntry(binDir, binDir)
        .containsEntry(socketDir, socketDir)
        .containsEntry(multusMount, multusMount)
        .doesNotContainKey("/var/lib/cni/multus");
  }

  /**
   * Issue 52: what the pod mounts for Multus's dirs, so that its volumes make no Multus dir on a
   * node that would not have it anyway: nothing for a dir inside another mount; else the deepest
   * directory above it that holds the conf dir too, below the top level, once for both; else the
   * dir itself.
   */
  @ParameterizedTest(name = "{1} {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "/etc/cni/net.d|/etc/cni/multus/net.d|/var/lib/cni/multus|/etc/cni",
        "/etc/cni/net.d|/etc/cni/multus/net.d|/etc/cni/multus/cache|/etc/cni",
        "/var/lib/k3s/etc/cni/net.d|/etc/cni/multus/net.d|/var/lib/cni/multus|/etc/cni/multus/net.d",
        "/etc/cni/net.d|/etc/multus/net.d|/var/lib/multus|/etc/multus/net.d,/var/lib/multus",
        "/etc/cni/net.d|/var/lib/cni-operator/multus|/var/lib/cni/multus|",
      })
  void multusDirsAreMountedThroughWhatTheOtherVolumesMakeAnyway(
      String confDir, String multusConfDir, String multusCacheDir, String expected) {
    PodSpec pod =
        RenderedChart.render(
                helm,
                "--set",
                "agent.hostPaths.cniConfDir=" + confDir,
                "--set",
                "agent.hostPaths.multusConfDir=" + multusConfDir,
                "--set",
                "agent.hostPaths.multusCacheDir=" + multusCacheDir)
            .single("DaemonSet", DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec();
    Container agent = onlyContainer(pod);
    Map<String, String> mounts = hostPathsByMount(pod, agent);
    List<String> forMultus = new ArrayList<>(mounts.values());
    forMultus.removeAll(
        List.of(
            confDir,
            "/opt/cni/bin",
            "/var/lib/cni",
            "/var/run/netns",
            "/var/lib/cni-operator",
            "/run/containerd",
            "/run/cni",
            "/",
            "/var/lib/kubelet/plugins_registry",
            "/var/lib/kubelet/plugins/networks.cnioperator.dev"));

    assertThat(forMultus)
        .containsExactlyInAnyOrder(expected == null ? new String[0] : expected.split(","));
    forMultus.forEach(p -> assertThat(mounts).containsEntry(p, p));
    assertThat(agent.getArgs())
        .contains("--multus-conf-dir=" + multusConfDir, "--multus-cache-dir=" + multusCacheDir);
  }

  @Test
  void multusDirsSetElsewhereArePassedAndMountedThere() {
    PodSpec pod =
        RenderedChart.render(
                helm,
                "--set",
                "agent.hostPaths.multusConfDir=/var/lib/rancher/multus/net.d",
                "--set",
                "agent.hostPaths.multusCacheDir=/var/lib/rancher/multus/cache")
            .single("DaemonSet", DaemonSet.class)
            .getSpec()
            .getTemplate()
            .getSpec();
    Container agent = onlyContainer(pod);

    assertThat(agent.getArgs())
        .contains(
            "--multus-conf-dir=/var/lib/rancher/multus/net.d",
            "--multus-cache-dir=/var/lib/rancher/multus/cache");
    assertThat(hostPathsByMount(pod, agent))
        .containsEntry("/var/lib/rancher/multus/net.d", "/var/lib/rancher/multus/net.d")
        .containsEntry("/var/lib/rancher/multus/cache", "/var/lib/rancher/multus/cache");
  }

  @Test
  void aMultusConfDirThatIsTheRuntimesIsRefused() {
    CommandResult result = helm.template("--set", "agent.hostPaths.multusConfDir=/etc/cni/net.d");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr())
        .contains("multusConfDir and multusCacheDir must differ from the conf, bin, cache")
        .contains("got /etc/cni/net.d among /etc/cni/net.d, /opt/cni/bin");
  }

  @Test
  void anExplicitHostPathWinsOverTheProfile() {
    DaemonSet daemonSet =
        RenderedChart.render(
                helm,
                "--set",
                "agent.hostPaths.profile=k3s",
                "--set",
                "agent.hostPaths.cniBinDir=/usr/libexec/cni")
            .single("DaemonSet", DaemonSet.class);
    Container agent = onlyContainer(daemonSet.getSpec().getTemplate().getSpec());

    assertThat(agent.getArgs())
        .contains(
            "--bin-dir=/usr/libexec/cni", "--conf-dir=/var/lib/rancher/k3s/agent/etc/cni/net.d");
  }

  @Test
  void operatorRbacIsLeastPrivilege() {
    RenderedChart chart = RenderedChart.render(helm);
    ClusterRole operator = chart.named("ClusterRole", "-operator", ClusterRole.class);
    Role inItsNamespace = chart.named("Role", "-operator", Role.class);

    assertThat(rules(operator.getRules()))
        .containsExactlyInAnyOrder(
            "cnioperator.dev/cninetworks: get,list,watch,patch,update",
            "cnioperator.dev/cninetworks/status: get,patch,update",
            "cnioperator.dev/cninetworks/finalizers: update",
            "cnioperator.dev/cninodes: get,list,watch,create,update,patch,delete",
            "cnioperator.dev/cniplugins: get,list,watch",
            "/nodes: get,list,watch",
            "/nodes: patch",
            "/namespaces: get,list,watch",
            "k8s.cni.cncf.io/network-attachment-definitions:"
                + " get,list,watch,create,update,patch,delete",
            "/events: create,patch",
            "events.k8s.io/events: create,patch",
            "resource.k8s.io/deviceclasses: get,create,update,delete",
            "resource.k8s.io/resourceclaimtemplates: get,list,create,delete",
            "resource.k8s.io/resourceslices: list,watch",
            "resource.k8s.io/resourceclaims: list,watch",
            "/pods: list,watch");
    assertThat(rules(inItsNamespace.getRules()))
        .containsExactlyInAnyOrder(
            "coordination.k8s.io/leases: create",
            "coordination.k8s.io/leases[cni-operator-leader]: get,update,patch");
    assertThat(inItsNamespace.getMetadata().getNamespace()).isEqualTo("default");
  }

  @Test
  void podNetworkTaintPassesTheKeyAndAgentSelectorTolerantOperatorAndTheRightsItNeeds() {
    RenderedChart chart = RenderedChart.render(helm, "--set", "podNetworkTaint.enabled=true");
    PodSpec pod = chart.single("Deployment", Deployment.class).getSpec().getTemplate().getSpec();
    assertThat(onlyContainer(pod).getArgs())
        .contains(
            "--pod-network-taint=cnioperator.dev/pod-network-not-ready",
            "--agent-pod-selector=app.kubernetes.io/name=cni-operator,"
                + "app.kubernetes.io/instance=cni,app.kubernetes.io/component=agent");
    assertThat(pod.getTolerations())
        .anyMatch(
            t ->
                "cnioperator.dev/pod-network-not-ready".equals(t.getKey())
                    && "NoSchedule".equals(t.getEffect()));
    // The agent pods carry exactly the labels the operator selects them by.
    assertThat(
            chart
                .single("DaemonSet", DaemonSet.class)
                .getSpec()
                .getTemplate()
                .getMetadata()
                .getLabels())
        .containsEntry("app.kubernetes.io/name", "cni-operator")
        .containsEntry("app.kubernetes.io/instance", "cni")
        .containsEntry("app.kubernetes.io/component", "agent");
    assertThat(rules(chart.named("ClusterRole", "-operator", ClusterRole.class).getRules()))
        .contains("/nodes: patch");
    assertThat(rules(chart.named("Role", "-operator", Role.class).getRules()))
        .contains("/pods: get,list,watch");
    // Off by default: the operator only takes the taint off, and needs no agent pods for that.
    RenderedChart plain = RenderedChart.render(helm);
    assertThat(
            onlyContainer(
                    plain.single("Deployment", Deployment.class).getSpec().getTemplate().getSpec())
                .getArgs())
        .contains("--remove-pod-network-taint=cnioperator.dev/pod-network-not-ready")
        .noneMatch(a -> a.startsWith("--pod-network-taint") || a.startsWith("--agent-pod"));
    assertThat(rules(plain.named("Role", "-operator", Role.class).getRules()))
        .noneMatch(r -> r.startsWith("/pods"));
  }

  @Test
  void uninstallTakesThePodNetworkTaintOffEveryNodeOnceTheOperatorIsGoneWhenTheTaintIsOn() {
    // Off, the operator keeps the taint off every node itself: no Job to wait on at uninstall.
    assertThat(RenderedChart.render(helm).ofKind("Job"))
        .noneMatch(j -> j.at("/metadata/name").asText().endsWith("-untaint"));
    for (RenderedChart chart :
        List.of(
            RenderedChart.render(helm, "--set", "podNetworkTaint.enabled=true"),
            RenderedChart.render(
                helm,
                "--set",
                "podNetworkTaint.enabled=true",
                "--set",
                "podNetworkTaint.key=example.com/net-not-ready"))) {
      Job job = chart.named("Job", "-untaint", Job.class);
      String key =
          onlyContainer(
                  chart.single("Deployment", Deployment.class).getSpec().getTemplate().getSpec())
              .getArgs()
              .stream()
              .filter(a -> a.contains("pod-network-taint="))
              .map(a -> a.substring(a.indexOf('=') + 1))
              .findFirst()
              .orElseThrow();
      for (HasMetadata hook :
          List.of(
              job,
              chart.named("ClusterRole", "-untaint", ClusterRole.class),
              chart.named("ClusterRoleBinding", "-untaint", ClusterRoleBinding.class),
              chart.named("Role", "-untaint", Role.class),
              chart.named("ServiceAccount", "-untaint", ServiceAccount.class))) {
        assertThat(hook.getMetadata().getAnnotations())
            .containsEntry("helm.sh/hook", "post-delete")
            .containsEntry("helm.sh/hook-delete-policy", "before-hook-creation,hook-succeeded");
      }
      assertThat(rules(chart.named("ClusterRole", "-untaint", ClusterRole.class).getRules()))
          .containsExactly("/nodes: get,list,patch");
      assertThat(rules(chart.named("Role", "-untaint", Role.class).getRules()))
          .containsExactly("/pods: list");
      PodSpec pod = job.getSpec().getTemplate().getSpec();
      assertThat(onlyContainer(pod).getArgs())
          .containsExactly(
              "remove-pod-network-taint",
              "--key=" + key,
              "--after-pods-gone=app.kubernetes.io/name=cni-operator,"
                  + "app.kubernetes.io/instance=cni,app.kubernetes.io/component=operator",
              "--timeout=120s");
      // It must run where every node carries the taint.
      assertThat(pod.getTolerations())
          .anyMatch(t -> key.equals(t.getKey()) && "NoSchedule".equals(t.getEffect()));
      assertThat(pod.getServiceAccountName()).endsWith("-untaint");
    }
  }

  @Test
  void agentRbacReadsItsCniNodeAndWritesOnlyStatusEventsAndItsNodesSlice() {
    ClusterRole agent =
        RenderedChart.render(helm).named("ClusterRole", "-agent", ClusterRole.class);

    assertThat(rules(agent.getRules()))
        .containsExactlyInAnyOrder(
            "cnioperator.dev/cninodes: get,list,watch",
            "cnioperator.dev/cninodes/status: patch,update",
            "/pods: get,list,watch",
            "/events: create,patch",
            "events.k8s.io/events: create,patch",
            "resource.k8s.io/resourceslices: get,list,watch,create,update,delete",
            "/nodes: get",
            "resource.k8s.io/resourceclaims: get",
            "resource.k8s.io/resourceclaims/status: patch",
            "resource.k8s.io/resourceclaims/driver[networks.cnioperator.dev]: associated-node:patch");
  }

  @Test
  void nodeRestrictionPolicyMatchesTheAgentServiceAccountAndIsBound() {
    RenderedChart chart = RenderedChart.render(helm);
    var policy = chart.ofKind("ValidatingAdmissionPolicy");
    var binding = chart.ofKind("ValidatingAdmissionPolicyBinding");

    // One for CniNodes, one for ResourceSlices.
    assertThat(policy).hasSize(2);
    assertThat(binding).hasSize(2);
    assertThat(policy.get(0).path("apiVersion").asText())
        .isEqualTo("admissionregistration.k8s.io/v1");
    assertThat(policy.get(0).at("/spec/matchConditions/0/expression").asText())
        .contains("system:serviceaccount:default:cni-cni-operator-agent");
    assertThat(policy.get(0).at("/spec/variables/0/expression").asText())
        .contains("authentication.kubernetes.io/node-name");
    assertThat(binding.get(0).at("/spec/policyName").asText())
        .isEqualTo(policy.get(0).at("/metadata/name").asText());
    assertThat(binding.get(0).at("/spec/validationActions/0").asText()).isEqualTo("Deny");

    assertThat(
            RenderedChart.render(helm, "--set", "agent.nodeRestriction.enabled=false")
                .ofKind("ValidatingAdmissionPolicy"))
        .isEmpty();
  }

  @Test
  void operatorStartsBeforeAnyPodNetworkExists() {
    PodSpec pod =
        RenderedChart.render(helm)
            .single("Deployment", Deployment.class)
            .getSpec()
            .getTemplate()
            .getSpec();

    assertThat(pod.getHostNetwork()).isTrue();
    assertThat(pod.getPriorityClassName()).isEqualTo("system-cluster-critical");
    assertThat(pod.getTolerations())
        .extracting(t -> t.getKey())
        .contains(
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/network-unavailable",
            "node.cloudprovider.kubernetes.io/uninitialized")
        .doesNotContainNull();
  }

  @Test
  void bothProgramsResolveNamesWithTheNodesResolverNotClusterDns() {
    // Cluster DNS runs on the pod network these programs create: an apiServer.host that is a DNS
    // name (a kubeadm HA controlPlaneEndpoint) must resolve through the node's resolver.
    RenderedChart chart =
        RenderedChart.render(
            helm,
            "--set",
            "apiServer.host=api.cluster.example",
            "--set",
            "agent.removeConflistsOnUninstall=true",
            "--set",
            "podNetworkTaint.enabled=true");

    assertThat(
            List.of(
                chart.single("Deployment", Deployment.class).getSpec().getTemplate().getSpec(),
                chart.single("DaemonSet", DaemonSet.class).getSpec().getTemplate().getSpec(),
                chart.named("Job", "-uninstall", Job.class).getSpec().getTemplate().getSpec(),
                chart.named("Job", "-untaint", Job.class).getSpec().getTemplate().getSpec()))
        .allSatisfy(
            pod -> {
              assertThat(pod.getHostNetwork()).isTrue();
              assertThat(pod.getDnsPolicy()).isEqualTo("Default");
              assertThat(env(onlyContainer(pod), "KUBERNETES_SERVICE_HOST"))
                  .isEqualTo("api.cluster.example");
            });
  }

  @Test
  void operatorOnThePodNetworkWhenHostNetworkIsOff() {
    PodSpec pod =
        RenderedChart.render(helm, "--set", "operator.hostNetwork=false")
            .single("Deployment", Deployment.class)
            .getSpec()
            .getTemplate()
            .getSpec();

    assertThat(pod.getHostNetwork()).isNull();
    assertThat(pod.getDnsPolicy()).isNull();
  }

  @Test
  void apiServerEndpointReachesBothProgramsOnlyWhenSet() {
    RenderedChart withEndpoint =
        RenderedChart.render(
            helm, "--set", "apiServer.host=10.200.0.1", "--set", "apiServer.port=7443");
    for (PodSpec pod :
        List.of(
            withEndpoint.single("Deployment", Deployment.class).getSpec().getTemplate().getSpec(),
            withEndpoint.single("DaemonSet", DaemonSet.class).getSpec().getTemplate().getSpec())) {
      Container c = onlyContainer(pod);
      assertThat(env(c, "KUBERNETES_SERVICE_HOST")).isEqualTo("10.200.0.1");
      assertThat(env(c, "KUBERNETES_SERVICE_PORT")).isEqualTo("7443");
    }

    RenderedChart byDefault = RenderedChart.render(helm);
    assertThat(
            onlyContainer(
                    byDefault
                        .single("Deployment", Deployment.class)
                        .getSpec()
                        .getTemplate()
                        .getSpec())
                .getEnv())
        .noneSatisfy(e -> assertThat(e.getName()).startsWith("KUBERNETES_SERVICE"));
  }

  @Test
  void conflistsAreRemovedOnUninstallOnlyWhenAskedByAPreDeleteJobThatDeletesTheNetworks() {
    assertThat(RenderedChart.render(helm).ofKind("Job"))
        .noneMatch(j -> j.at("/metadata/name").asText().endsWith("-uninstall"));

    RenderedChart chart =
        RenderedChart.render(
            helm,
            "--set",
            "agent.removeConflistsOnUninstall=true",
            "--set",
            "agent.removeConflistsTimeoutSeconds=120",
            "--set",
            "apiServer.host=10.200.0.1");
    Job job = chart.named("Job", "-uninstall", Job.class);
    ClusterRole role = chart.named("ClusterRole", "-uninstall", ClusterRole.class);
    for (HasMetadata hook :
        List.of(
            job,
            role,
            chart.named("ClusterRoleBinding", "-uninstall", ClusterRoleBinding.class),
            chart.named("ServiceAccount", "-uninstall", ServiceAccount.class))) {
      assertThat(hook.getMetadata().getAnnotations())
          .containsEntry("helm.sh/hook", "pre-delete")
          .containsEntry("helm.sh/hook-delete-policy", "before-hook-creation,hook-succeeded");
    }
    assertThat(rules(role.getRules()))
        .containsExactly("cnioperator.dev/cninetworks: get,list,delete,deletecollection");
    PodSpec pod = job.getSpec().getTemplate().getSpec();
    Container c = onlyContainer(pod);
    assertThat(c.getImage()).contains("/operator:");
    assertThat(c.getArgs()).containsExactly("delete-networks", "--timeout=120s");
    assertThat(env(c, "KUBERNETES_SERVICE_HOST")).isEqualTo("10.200.0.1");
    assertThat(pod.getHostNetwork()).isTrue();
    assertThat(pod.getServiceAccountName()).endsWith("-uninstall");
    assertThat(job.getSpec().getBackoffLimit()).isZero();
  }

  @Test
  void bothProgramsListenOnEveryAddressByDefaultAsBeforeTheValuesExisted() {
    RenderedChart chart = RenderedChart.render(helm);
    Container operator = chart.onlyContainer("Deployment");
    Container agent = chart.onlyContainer("DaemonSet");

    assertThat(operator.getArgs()).contains("--metrics-bind-address=*");
    assertThat(agent.getArgs()).contains("--listen=0.0.0.0:9464");
    assertThat(operator.getEnv()).noneMatch(e -> e.getName().equals("POD_IP"));
    assertThat(agent.getEnv()).noneMatch(e -> e.getName().equals("POD_IP"));
  }

  @Test
  void podIpKeepsEachProgramToThePodsOwnAddress() {
    RenderedChart chart =
        RenderedChart.render(
            helm,
            "--set",
            "operator.metrics.bindAddress=podIP",
            "--set",
            "agent.metrics.bindAddress=podIP");

    for (String kind : List.of("Deployment", "DaemonSet")) {
      Container c = chart.onlyContainer(kind);
      assertThat(c.getEnv())
          .as(kind)
          .anySatisfy(
              e -> {
                assertThat(e.getName()).isEqualTo("POD_IP");
                assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
              });
    }
    assertThat(chart.onlyContainer("Deployment").getArgs())
        .contains("--metrics-bind-address=$(POD_IP)");
    assertThat(chart.onlyContainer("DaemonSet").getArgs()).contains("--listen=$(POD_IP):9464");
  }

  @Test
  void anIpv6AddressReachesTheAgentInBrackets() {
    Container agent =
        RenderedChart.render(helm, "--set", "agent.metrics.bindAddress=::")
            .onlyContainer("DaemonSet");

    assertThat(agent.getArgs()).contains("--listen=[::]:9464");
  }

  @ParameterizedTest
  @CsvSource({"operator,127.0.0.1", "agent,::1"})
  void aLoopbackBindAddressIsRefusedNamingTheValue(String component, String address) {
    CommandResult result = helm.template("--set", component + ".metrics.bindAddress=" + address);

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr())
        .contains(component + ".metrics.bindAddress " + address + " is a loopback address");
  }

  @Test
  void operatorAndAgentOnOneHostPortAreRefused() {
    CommandResult result = helm.template("--set", "operator.httpPort=9464");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr()).contains("operator.httpPort and agent.httpPort are both 9464");
  }

  @Test
  void twoHostPathsOnOneDirectoryAreRefusedNamingThem() {
    CommandResult result = helm.template("--set", "agent.hostPaths.stateDir=/var/lib/cni");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr())
        .contains("agent.hostPaths: the conf, bin, cache, netns and state dirs must be five")
        .contains("/var/lib/cni, /var/run/netns, /var/lib/cni");
  }

  @Test
  void twoReplicasWithoutLeaderElectionAreRefusedBySchema() {
    CommandResult result =
        helm.template(
            "--set", "operator.replicas=2", "--set", "operator.leaderElection.enabled=false");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stderr())
        .contains("values don't meet the specifications of the schema")
        .contains("/operator/replicas");
  }

  @Test
  void monitoringObjectsAreOffByDefault() {
    RenderedChart chart = RenderedChart.render(helm);

    assertThat(chart.documents())
        .noneMatch(d -> d.path("apiVersion").asText().startsWith("monitoring.coreos.com/"));
  }

  @Test
  void theDashboardIsOffByDefault() {
    assertThat(RenderedChart.render(helm).ofKind("ConfigMap"))
        .noneMatch(m -> m.path("metadata").path("name").asText().endsWith("-dashboard"));
  }

  @Test
  void theDashboardIsAConfigMapWithTheSidecarsLabelAndValidJson() throws Exception {
    RenderedChart chart =
        RenderedChart.render(
            helm, "--namespace", "cni-system", "--set", "monitoring.dashboard.enabled=true");
    JsonNode map = dashboardMap(chart);
    assertThat(map.at("/metadata/namespace").asText()).isEqualTo("cni-system");
    assertThat(map.at("/metadata/labels/grafana_dashboard").asText()).isEqualTo("1");
    JsonNode dashboard = new ObjectMapper().readTree(map.at("/data/cni-operator.json").asText());
    // The chart's dashboards/cni-operator.json, whole.
    assertThat(dashboard)
        .isEqualTo(new ObjectMapper().readTree(ChartDashboardIT.DASHBOARD.toFile()));
  }

  @Test
  void theDashboardTakesItsLabelAndNamespaceFromTheValues() {
    RenderedChart chart =
        RenderedChart.render(
            helm,
            "--namespace",
            "cni-system",
            "--set",
            "monitoring.dashboard.enabled=true",
            "--set",
            "monitoring.dashboard.label.key=example.com/dashboard",
            "--set",
            "monitoring.dashboard.label.value=cni",
            "--set",
            "monitoring.dashboard.namespace=grafana");
    JsonNode map = dashboardMap(chart);
    assertThat(map.at("/metadata/namespace").asText()).isEqualTo("grafana");
    assertThat(map.at("/metadata/labels").path("example.com/dashboard").asText()).isEqualTo("cni");
    assertThat(map.at("/metadata/labels").has("grafana_dashboard")).isFalse();
  }

  private static JsonNode dashboardMap(RenderedChart chart) {
    List<JsonNode> maps =
        chart.ofKind("ConfigMap").stream()
            .filter(m -> m.at("/metadata/name").asText().endsWith("-dashboard"))
            .toList();
    assertThat(maps).as("the dashboard ConfigMap").hasSize(1);
    return maps.get(0);
  }

  @Test
  void lintIsCleanWithTheMonitoringObjects() {
    assertLintClean(
        "--set",
        "monitoring.podMonitor.enabled=true",
        "--set",
        "monitoring.prometheusRule.enabled=true");
  }

  @Test
  void podMonitorsScrapeEachProgramsPodsOnTheirPortWithTheirJobPodAndNode() {
    MonitoringObjects monitoring =
        MonitoringObjects.render(
            helm, "cni-system", "--set", "monitoring.labels.release=kube-prometheus-stack");
    RenderedChart chart = monitoring.chart();

    assertThat(monitoring.podMonitors()).hasSize(2);
    for (String component : List.of("operator", "agent")) {
      String workload = component.equals("operator") ? "Deployment" : "DaemonSet";
      JsonNode pods = chart.ofKind(workload).get(0).at("/spec/template");
      JsonNode podMonitor =
          monitoring.podMonitors().stream()
              .filter(m -> m.at("/metadata/name").asText().equals("cni-cni-operator-" + component))
              .findFirst()
              .orElseThrow();
      JsonNode endpoint = podMonitor.at("/spec/podMetricsEndpoints/0");

      assertThat(podMonitor.at("/metadata/namespace").asText()).isEqualTo("cni-system");
      assertThat(podMonitor.at("/metadata/labels/release").asText())
          .as("the label kube-prometheus-stack's Prometheus selects")
          .isEqualTo("kube-prometheus-stack");
      assertThat(podMonitor.at("/spec/selector/matchLabels"))
          .isEqualTo(chart.ofKind(workload).get(0).at("/spec/selector/matchLabels"));
      assertThat(podMonitor.at("/spec/namespaceSelector/matchNames/0").asText())
          .isEqualTo("cni-system");
      assertThat(pods.at("/spec/containers/0/ports"))
          .anySatisfy(
              p -> assertThat(p.path("name").asText()).isEqualTo(endpoint.path("port").asText()));
      assertThat(endpoint.path("path").asText()).isEqualTo("/metrics");
      assertThat(relabeling(endpoint, "job").path("replacement").asText())
          .isEqualTo("cni-cni-operator-" + component);
      assertThat(relabeling(endpoint, "node").at("/sourceLabels/0").asText())
          .isEqualTo("__meta_kubernetes_pod_node_name");
      assertThat(relabeling(endpoint, "pod").at("/sourceLabels/0").asText())
          .isEqualTo("__meta_kubernetes_pod_name");
    }
  }

  @Test
  void prometheusRuleSelectsTheOperatorsJobAndCarriesTheValues() {
    MonitoringObjects monitoring =
        MonitoringObjects.render(
            helm,
            "cni-system",
            "--set",
            "monitoring.prometheusRule.runbookBaseUrl=https://docs.example.com/ops.html",
            "--set",
            "monitoring.prometheusRule.alerts.CniNetworkNodesNotCurrent.for=42m",
            "--set",
            "monitoring.prometheusRule.alerts.CniNetworkNotReady.for=7m",
            "--set",
            "monitoring.prometheusRule.agentPassStaleSeconds=1234",
            "--set",
            "monitoring.prometheusRule.alerts.CniAgentStaleReservations.for=3h",
            "--set",
            "monitoring.prometheusRule.alerts.CniNetworkRolloutStopped.window=1m",
            "--set",
            "monitoring.prometheusRule.alerts.CniNetworkRolloutStopped.for=20s",
            "--set",
            "monitoring.prometheusRule.pluginExecSlowSeconds=2.5");

    assertThat(monitoring.prometheusRule().at("/metadata/namespace").asText())
        .isEqualTo("cni-system");
    assertThat(monitoring.alerts())
        .extracting(a -> a.path("alert").asText())
        .contains(
            "CniOperatorDown",
            "CniOperatorNoLeader",
            "CniOperatorReconcileErrors",
            "CniNetworkNotReady",
            "CniNetworkDegraded",
            "CniNetworkRolloutStopped",
            "CniNetworkNodesNotCurrent");
    assertThat(monitoring.prometheusRule().at("/spec/groups"))
        .extracting(g -> g.path("name").asText())
        .containsExactly("cni-operator.operator", "cni-operator.agent");
    for (JsonNode alert : monitoring.alerts()) {
      String name = alert.path("alert").asText();
      // The agent's alerts select the agent's job, the operator's the operator's.
      String job =
          name.startsWith("CniAgent") ? "cni-cni-operator-agent" : "cni-cni-operator-operator";
      assertThat(alert.path("expr").asText()).as(name).contains("job=\"" + job + "\"");
      assertThat(alert.at("/annotations/runbook_url").asText())
          .isEqualTo(
              "https://docs.example.com/ops.html#" + name.toLowerCase(java.util.Locale.ROOT));
    }
    assertThat(alert(monitoring, "CniNetworkNodesNotCurrent").path("for").asText())
        .isEqualTo("42m");
    assertThat(alert(monitoring, "CniNetworkNotReady").path("for").asText()).isEqualTo("7m");
    assertThat(alert(monitoring, "CniAgentNodePassStale").path("expr").asText()).endsWith("> 1234");
    assertThat(alert(monitoring, "CniAgentStaleReservations").path("for").asText()).isEqualTo("3h");
    assertThat(
            alert(monitoring, "CniAgentStaleReservations").at("/annotations/description").asText())
        .contains("for 3h");
    JsonNode stopped = alert(monitoring, "CniNetworkRolloutStopped");
    assertThat(stopped.path("for").asText()).isEqualTo("20s");
    assertThat(stopped.path("expr").asText()).contains("[1m]").contains("offset 1m");
    assertThat(stopped.path("expr").asText()).doesNotContain("30m");
    // By default it fires at once: a for of 0s is left out.
    assertThat(
            alert(MonitoringObjects.render(helm, "cni-system"), "CniNetworkRolloutStopped")
                .has("for"))
        .isFalse();
    assertThat(alert(monitoring, "CniAgentPluginExecSlow").path("expr").asText()).endsWith("> 2.5");
  }

  @ParameterizedTest(name = "{0}={1} is refused at {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "operator.replicas|0|/operator/replicas",
        "operator.replicas|two|/operator/replicas",
        "operator.image.tag|bad tag!|/operator/image/tag",
        "operator.image.repository|''|/operator/image/repository",
        "agent.image.repository|Agent Image|/agent/image/repository",
        "operator.image.digest|sha256:xyz|/operator/image/digest",
        "operator.logLevel|verbose|/operator/logLevel",
        "operator.leaderElection.retryPeriodSeconds|0|/operator/leaderElection/retryPeriodSeconds",
        "operator.httpPort|80|/operator/httpPort",
        "operator.metrics.bindAddress|localhost|/operator/metrics/bindAddress",
        "agent.metrics.bindAddress|*|/agent/metrics/bindAddress",
        "agent.metrics.bindAddres|0.0.0.0|/agent/metrics",
        "agent.hostPaths.cniConfDir|etc/cni/net.d|/agent/hostPaths/cniConfDir",
        "agent.hostPaths.stateDir|/var/lib/../../etc|/agent/hostPaths/stateDir",
        "agent.hostPaths.multusConfDir|etc/cni/multus/net.d|/agent/hostPaths/multusConfDir",
        "agent.hostPaths.profile|microk8s|/agent/hostPaths/profile",
        "agent.criSocket.path|run/containerd.sock|/agent/criSocket/path",
        "agent.resources.limits.memory|lots|/agent/resources/limits/memory",
        "agent.resources.requets.cpu|1|/agent/resources",
        "agent.updateStrategy.maxUnavailable|0|/agent/updateStrategy/maxUnavailable",
        "monitoring.podMonitor.enable|true|/monitoring/podMonitor",
        "monitoring.podMonitor.interval|30|/monitoring/podMonitor/interval",
        "monitoring.prometheusRule.alerts.CniAgentDown.for|30|/monitoring/prometheusRule/alerts/CniAgentDown/for",
        "monitoring.prometheusRule.alerts.CniAgentDown.window|1m|/monitoring/prometheusRule/alerts/CniAgentDown",
        "monitoring.prometheusRule.alerts.CniAgentDwn.for|1m|/monitoring/prometheusRule/alerts",
        "monitoring.prometheusRule.runbookBaseUrl|docs/operations.md|/monitoring/prometheusRule/runbookBaseUrl",
      })
  void badValueIsRefusedBySchemaNamingTheValue(String key, String value, String where) {
    String set = "''".equals(value) ? key + "=" : key + "=" + value;
    String setFlag = value.equals("two") ? "--set-string" : "--set";

    CommandResult result = helm.template(setFlag, set);

    assertThat(result.exitCode()).as("helm template with %s", set).isNotZero();
    assertThat(result.stderr())
        .contains("values don't meet the specifications of the schema")
        .contains(where);
  }

  @ParameterizedTest(name = "{0}={1} fails naming the alert")
  @CsvSource(
      delimiter = '|',
      value = {
        "CniAgentDown.for|''|CniAgentDown.for is empty",
        "CniAgentDown.for|null|CniAgentDown.for is empty",
        "CniOperatorDown.for|10 minutes|CniOperatorDown.for is \"10 minutes\", not a Prometheus duration",
        "CniNetworkRolloutStopped.window|30|CniNetworkRolloutStopped.window is \"30\", not a Prometheus duration",
        "CniAgentPluginExecSlow.window|''|CniAgentPluginExecSlow.window is empty",
      })
  void anAlertDurationThatIsNotAPrometheusDurationFailsTheRenderNamingTheAlert(
      String key, String value, String message) {
    String set =
        "monitoring.prometheusRule.alerts." + key + "=" + ("''".equals(value) ? "" : value);

    // --set turns null into a removed key; --set-string keeps the rest strings, as a user's would.
    String setFlag = "null".equals(value) ? "--set" : "--set-string";

    CommandResult result =
        helm.template("--set", "monitoring.prometheusRule.enabled=true", setFlag, set);

    assertThat(result.exitCode()).as("helm template with %s", set).isNotZero();
    assertThat(result.stderr()).contains("monitoring.prometheusRule.alerts." + message);
  }

  @Test
  void anAlertSwitchedOffIsLeftOutAndItsDurationsAreNotChecked() {
    MonitoringObjects monitoring =
        MonitoringObjects.render(
            helm,
            "cni-system",
            "--set",
            "monitoring.prometheusRule.alerts.CniAgentDown.enabled=false",
            "--set-string",
            "monitoring.prometheusRule.alerts.CniAgentDown.for=never");

    List<String> names = monitoring.alerts().stream().map(a -> a.path("alert").asText()).toList();
    assertThat(names).doesNotContain("CniAgentDown").contains("CniAgentNodePassStale");
    assertThat(names).hasSize(MonitoringObjects.render(helm, "cni-system").alerts().size() - 1);
  }

  private static void assertLintClean(String... extraArgs) {
    String[] args = new String[extraArgs.length + 5];
    args[0] = "lint";
    args[1] = "--strict";
    args[2] = "--kube-version";
    args[3] = ToolPaths.kubernetesVersion();
    args[4] = Helm.chartDir().toString();
    System.arraycopy(extraArgs, 0, args, 5, extraArgs.length);

    CommandResult result = helm.run(args);

    assertThat(result.exitCode())
        .as("helm lint:\n%s\n%s", result.stdout(), result.stderr())
        .isZero();
    assertThat(result.stdout())
        .contains("1 chart(s) linted, 0 chart(s) failed")
        .doesNotContain("[WARNING]", "[ERROR]");
  }

  private static JsonNode relabeling(JsonNode endpoint, String targetLabel) {
    for (JsonNode r : endpoint.path("relabelings")) {
      if (r.path("targetLabel").asText().equals(targetLabel)) {
        return r;
      }
    }
    throw new AssertionError("no relabeling sets " + targetLabel + " in " + endpoint);
  }

  private static JsonNode alert(MonitoringObjects monitoring, String name) {
    return monitoring.alerts().stream()
        .filter(a -> a.path("alert").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no alert " + name));
  }

  private static String env(Container container, String name) {
    return container.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .findFirst()
        .orElseThrow()
        .getValue();
  }

  private static Container onlyContainer(PodSpec pod) {
    assertThat(pod.getContainers()).hasSize(1);
    return pod.getContainers().get(0);
  }

  /** mountPath to hostPath.path, for every hostPath volume the container mounts. */
  private static Map<String, String> hostPathsByMount(PodSpec pod, Container container) {
    Map<String, Volume> volumes =
        pod.getVolumes().stream().collect(Collectors.toMap(Volume::getName, v -> v));
    return container.getVolumeMounts().stream()
        .filter(m -> volumes.get(m.getName()).getHostPath() != null)
        .collect(
            Collectors.toMap(
                VolumeMount::getMountPath, m -> volumes.get(m.getName()).getHostPath().getPath()));
  }

  /** The hostPath volume the container mounts at {@code mountPath}. */
  private static HostPathVolumeSource hostPathVolume(
      PodSpec pod, Container container, String mountPath) {
    String name = mount(container, mountPath).getName();
    return pod.getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow()
        .getHostPath();
  }

  private static VolumeMount mount(Container container, String mountPath) {
    return container.getVolumeMounts().stream()
        .filter(m -> m.getMountPath().equals(mountPath))
        .findFirst()
        .orElseThrow();
  }

  /** Each rule as "group/resource[names]: verbs", one line per group and resource. */
  private static List<String> rules(List<PolicyRule> rules) {
    return rules.stream()
        .flatMap(
            r ->
                r.getApiGroups().stream()
                    .flatMap(
                        g ->
                            r.getResources().stream()
                                .map(
                                    res ->
                                        g
                                            + "/"
                                            + res
                                            + (r.getResourceNames().isEmpty()
                                                ? ""
                                                : r.getResourceNames().toString().replace(" ", ""))
                                            + ": "
                                            + String.join(",", r.getVerbs()))))
        .toList();
  }
}
