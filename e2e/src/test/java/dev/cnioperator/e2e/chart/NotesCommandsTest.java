package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.testkit.ToolPaths;
import java.util.List;
import org.junit.jupiter.api.Test;

class NotesCommandsTest {
  @Test
  void takesEachKubectlCommandInOrderJoiningContinuedLinesAndLeavesOutDeletes() {
    String notes =
        """
        1. Wait:

             kubectl -n ns rollout status deployment/x --timeout=5m

        2. Apply:

             kubectl apply -f examples/bridge-hostlocal-portmap.yaml
             kubectl wait --for=condition=Ready \\
               cninetwork/bridge-net --timeout=2m

        To remove the CRDs:

             kubectl delete crd a.cnioperator.dev
             helm uninstall x
        """;

    assertThat(NotesCommands.kubectl(notes))
        .containsExactly(
            List.of("-n", "ns", "rollout", "status", "deployment/x", "--timeout=5m"),
            List.of(
                "apply",
                "-f",
                ToolPaths.repoRoot().resolve("examples/bridge-hostlocal-portmap.yaml").toString()),
            List.of("wait", "--for=condition=Ready", "cninetwork/bridge-net", "--timeout=2m"));
  }

  @Test
  void refusesACommandThatNeedsAShell() {
    assertThatThrownBy(() -> NotesCommands.kubectl("  kubectl get pods | grep x\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shell syntax");
  }

  @Test
  void namesTheNetworksAnApplyCreatedOrConfigured() {
    String output =
        "cninetwork.cnioperator.dev/bridge-net created\n"
            + "cninetwork.cnioperator.dev/other configured\n"
            + "configmap/x created\n";

    assertThat(NotesCommands.appliedNames(List.of("apply", "-f", "f.yaml"), output))
        .containsExactly("bridge-net", "other");
    assertThat(NotesCommands.appliedNames(List.of("get", "cninetworks"), output)).isEmpty();
  }
}
