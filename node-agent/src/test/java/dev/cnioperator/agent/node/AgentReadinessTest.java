package dev.cnioperator.agent.node;

import static dev.cnioperator.api.v1alpha1.ConfigDirectory.Multus;
import static dev.cnioperator.api.v1alpha1.ConfigDirectory.Runtime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.conflist.Appended;
import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.RuntimeNetwork;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentReadinessTest {
  private static final String SHA = "a".repeat(64);
  private static final Path CONF_DIR = Path.of("/etc/cni/net.d");
  private static final NetworkOutcome POD_NETWORK =
      new NetworkOutcome(
          "pods",
          "10-pods.conflist",
          NetworkState.Applied,
          SHA,
          "",
          false,
          Runtime,
          null,
          SHA,
          null);

  @Test
  void notReadyBeforeTheFirstPass() {
    assertThat(AgentReadiness.notReady(null, true, loaded("pods", SHA), CONF_DIR))
        .hasValueSatisfying(r -> assertThat(r).contains("no pass"));
  }

  @Test
  void readyWithNothingOfOursToLoadEvenWhileTheRuntimeHasNoNetwork() {
    NodeSync.Result pass =
        pass(
            null,
            new NetworkOutcome(
                "held",
                "10-held.conflist",
                NetworkState.Failed,
                null,
                "x",
                false,
                Runtime,
                null,
                null,
                null));
    assertThat(AgentReadiness.notReady(pass, true, notReady(), CONF_DIR)).isEmpty();
  }

  @Test
  void withoutACriSocketReadyOnceTheFilesAreWritten() {
    assertThat(AgentReadiness.notReady(pass("pods", POD_NETWORK), false, null, CONF_DIR)).isEmpty();
  }

  @Test
  void notReadyUntilTheRuntimeAnswersAndWhileItsNetworkIsNotReady() {
    NodeSync.Result pass = pass("pods", POD_NETWORK);
    assertThat(AgentReadiness.notReady(pass, true, null, CONF_DIR))
        .hasValueSatisfying(r -> assertThat(r).contains("not answered"));
    assertThat(AgentReadiness.notReady(pass, true, notReady(), CONF_DIR))
        .hasValueSatisfying(
            r ->
                assertThat(r)
                    .contains("/run/containerd/containerd.sock")
                    .contains("NetworkReady=false")
                    .contains("05-bad.conflist"));
  }

  @Test
  void readyOnlyOnceTheRuntimeLoadedTheVeryFileTheAgentWrote() {
    NodeSync.Result pass = pass("pods", POD_NETWORK);
    assertThat(AgentReadiness.notReady(pass, true, loaded("pods", SHA), CONF_DIR)).isEmpty();
    assertThat(AgentReadiness.notReady(pass, true, loaded("pods", "b".repeat(64)), CONF_DIR))
        .hasValueSatisfying(
            r -> assertThat(r).contains("10-pods.conflist").contains("b".repeat(64)).contains(SHA));
    assertThat(AgentReadiness.notReady(pass, true, loaded("old", SHA), CONF_DIR))
        .hasValueSatisfying(r -> assertThat(r).contains("loaded network old"));
  }

  @Test
  void aForeignDefaultNetworkOrARuntimeThatDoesNotSayWhatItLoadedLeavesNetworkReadyToDecide() {
    assertThat(
            AgentReadiness.notReady(
                pass("foreign", POD_NETWORK), true, loaded("foreign", SHA), CONF_DIR))
        .isEmpty();
    RuntimeNetwork crio = new RuntimeNetwork().setNetworkReady(true);
    assertThat(AgentReadiness.notReady(pass("pods", POD_NETWORK), true, crio, CONF_DIR)).isEmpty();
  }

  @Test
  void notReadyWhileTheRuntimeLoadsAnotherDirectoryNamingBoth() {
    NodeSync.Result pass = pass("pods", POD_NETWORK);
    RuntimeNetwork k3s =
        loaded("cbr0", "b".repeat(64))
            .setEndpoint("/run/k3s/containerd/containerd.sock")
            .setConfDir("/var/lib/rancher/k3s/agent/etc/cni/net.d");
    assertThat(AgentReadiness.notReady(pass, true, k3s, CONF_DIR))
        .hasValueSatisfying(
            r ->
                assertThat(r)
                    .contains(
                        "loads CNI configuration from /var/lib/rancher/k3s/agent/etc/cni/net.d")
                    .contains("this agent writes to /etc/cni/net.d")
                    .contains(
                        "set the chart's agent.hostPaths.profile (or agent.hostPaths.cniConfDir)"));
    // The same directory, however spelled, is no mismatch.
    assertThat(
            AgentReadiness.notReady(
                pass, true, loaded("pods", SHA).setConfDir("/etc/cni/./net.d/"), CONF_DIR))
        .isEmpty();
  }

  @Test
  void withPluginsAppendedTheRuntimeLoadsTheFileAsItIsNotTheRevisionAlone() {
    String own = "{\"cniVersion\":\"1.0.0\",\"name\":\"pods\",\"plugins\":[{\"type\":\"bridge\"}]}";
    Appended istio =
        Appended.after(own, own.replace("}]}", "},{\"type\":\"istio-cni\"}]}").getBytes())
            .orElseThrow();
    String file = "c".repeat(64);
    NodeSync.Result pass =
        pass(
            "pods",
            new NetworkOutcome(
                "pods",
                "10-pods.conflist",
                NetworkState.Applied,
                SHA,
                "",
                false,
                Runtime,
                istio,
                file,
                null));
    assertThat(AgentReadiness.notReady(pass, true, loaded("pods", file), CONF_DIR)).isEmpty();
    assertThat(AgentReadiness.notReady(pass, true, loaded("pods", SHA), CONF_DIR))
        .hasValueSatisfying(r -> assertThat(r).contains("sha256 " + file));
  }

  @Test
  void aNodeWithOnlyMultusNetworksHasNothingForTheRuntimeToLoad() {
    NetworkOutcome secondary =
        new NetworkOutcome(
            "sec",
            "50-sec.conflist",
            NetworkState.Applied,
            SHA,
            "",
            false,
            Multus,
            null,
            SHA,
            null);
    assertThat(AgentReadiness.notReady(pass(null, secondary), true, notReady(), CONF_DIR))
        .isEmpty();
  }

  @Test
  void aMultusNetworkIsNeverTakenForTheDefaultNetworkTheRuntimeMustHaveLoaded() {
    // A foreign file in the runtime's directory names the network "sec" too: the runtime's
    // business, whatever the agent wrote into Multus's directory under that name.
    NetworkOutcome secondary =
        new NetworkOutcome(
            "sec",
            "50-sec.conflist",
            NetworkState.Applied,
            SHA,
            "",
            false,
            Multus,
            null,
            SHA,
            null);
    NodeSync.Result pass = pass("sec", POD_NETWORK, secondary);
    assertThat(AgentReadiness.notReady(pass, true, loaded("sec", "b".repeat(64)), CONF_DIR))
        .isEmpty();
  }

  private static NodeSync.Result pass(String defaultNetwork, NetworkOutcome... outcomes) {
    return new NodeSync.Result(List.of(outcomes), List.of(), List.of(), defaultNetwork, List.of());
  }

  private static RuntimeNetwork loaded(String network, String sha) {
    return new RuntimeNetwork()
        .setNetworkReady(true)
        .setLoadedNetwork(network)
        .setLoadedSha256(sha);
  }

  private static RuntimeNetwork notReady() {
    return new RuntimeNetwork()
        .setEndpoint("/run/containerd/containerd.sock")
        .setNetworkReady(false)
        .setReason("NetworkPluginNotReady")
        .setMessage("failed to load CNI config list file /etc/cni/net.d/05-bad.conflist");
  }
}
