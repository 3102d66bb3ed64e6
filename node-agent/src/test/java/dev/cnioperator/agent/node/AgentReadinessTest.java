package dev.cnioperator.agent.node;

import static dev.cnioperator.api.v1alpha1.ConfigDirectory.Multus;
import static dev.cnioperator.api.v1alpha1.ConfigDirectory.Runtime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.agent.conflist.NetworkOutcome.State;
import dev.cnioperator.api.v1alpha1.RuntimeNetwork;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentReadinessTest {
  private static final String SHA = "a".repeat(64);
  private static final NetworkOutcome POD_NETWORK =
      new NetworkOutcome("pods", "10-pods.conflist", State.Applied, SHA, "", false, Runtime);

  @Test
  void notReadyBeforeTheFirstPass() {
    assertThat(AgentReadiness.notReady(null, true, loaded("pods", SHA)))
        .hasValueSatisfying(r -> assertThat(r).contains("no pass"));
  }

  @Test
  void readyWithNothingOfOursToLoadEvenWhileTheRuntimeHasNoNetwork() {
    NodeSync.Result pass =
        pass(
            null,
            new NetworkOutcome(
                "held", "10-held.conflist", State.Failed, null, "x", false, Runtime));
    assertThat(AgentReadiness.notReady(pass, true, notReady())).isEmpty();
  }

  @Test
  void withoutACriSocketReadyOnceTheFilesAreWritten() {
    assertThat(AgentReadiness.notReady(pass("pods", POD_NETWORK), false, null)).isEmpty();
  }

  @Test
  void notReadyUntilTheRuntimeAnswersAndWhileItsNetworkIsNotReady() {
    NodeSync.Result pass = pass("pods", POD_NETWORK);
    assertThat(AgentReadiness.notReady(pass, true, null))
        .hasValueSatisfying(r -> assertThat(r).contains("not answered"));
    assertThat(AgentReadiness.notReady(pass, true, notReady()))
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
    assertThat(AgentReadiness.notReady(pass, true, loaded("pods", SHA))).isEmpty();
    assertThat(AgentReadiness.notReady(pass, true, loaded("pods", "b".repeat(64))))
        .hasValueSatisfying(
            r -> assertThat(r).contains("10-pods.conflist").contains("b".repeat(64)).contains(SHA));
    assertThat(AgentReadiness.notReady(pass, true, loaded("old", SHA)))
        .hasValueSatisfying(r -> assertThat(r).contains("loaded network old"));
  }

  @Test
  void aForeignDefaultNetworkOrARuntimeThatDoesNotSayWhatItLoadedLeavesNetworkReadyToDecide() {
    assertThat(AgentReadiness.notReady(pass("foreign", POD_NETWORK), true, loaded("foreign", SHA)))
        .isEmpty();
    RuntimeNetwork crio = new RuntimeNetwork().withNetworkReady(true);
    assertThat(AgentReadiness.notReady(pass("pods", POD_NETWORK), true, crio)).isEmpty();
  }

  @Test
  void aNodeWithOnlyMultusNetworksHasNothingForTheRuntimeToLoad() {
    NetworkOutcome secondary =
        new NetworkOutcome("sec", "50-sec.conflist", State.Applied, SHA, "", false, Multus);
    assertThat(AgentReadiness.notReady(pass(null, secondary), true, notReady())).isEmpty();
  }

  @Test
  void aMultusNetworkIsNeverTakenForTheDefaultNetworkTheRuntimeMustHaveLoaded() {
    // A foreign file in the runtime's directory names the network "sec" too: the runtime's
    // business, whatever the agent wrote into Multus's directory under that name.
    NetworkOutcome secondary =
        new NetworkOutcome("sec", "50-sec.conflist", State.Applied, SHA, "", false, Multus);
    NodeSync.Result pass = pass("sec", POD_NETWORK, secondary);
    assertThat(AgentReadiness.notReady(pass, true, loaded("sec", "b".repeat(64)))).isEmpty();
  }

  private static NodeSync.Result pass(String defaultNetwork, NetworkOutcome... outcomes) {
    return new NodeSync.Result(List.of(outcomes), List.of(), List.of(), defaultNetwork, List.of());
  }

  private static RuntimeNetwork loaded(String network, String sha) {
    return new RuntimeNetwork()
        .withNetworkReady(true)
        .withLoadedNetwork(network)
        .withLoadedSha256(sha);
  }

  private static RuntimeNetwork notReady() {
    return new RuntimeNetwork()
        .withEndpoint("/run/containerd/containerd.sock")
        .withNetworkReady(false)
        .withReason("NetworkPluginNotReady")
        .withMessage("failed to load CNI config list file /etc/cni/net.d/05-bad.conflist");
  }
}
