package dev.cnioperator.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.network.HostLocalReservations;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.ManagedNetwork.CheckSettings;
import dev.cnioperator.agent.network.ManagedNetwork.CleanupSettings;
import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.ValidationLevel;
import dev.cnioperator.cni.exec.ExecResult;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.cni.runtime.CniRuntime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the probe asks of the container runtime depends on where the network's file is: the
 * runtime's libcni runs a network of its own directory, Multus's runs a secondary network.
 */
class RevisionProbeTest {
  private static final String CONTENT =
      "{\"cniVersion\":\"1.1.0\",\"name\":\"sec\",\"plugins\":[{\"type\":\"fake\"}]}";

  @TempDir Path dir;

  @Test
  void whatTheContainerRuntimeCannotAddFailsOnlyANetworkOfItsOwnDirectory() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Files.createFile(
        bin.resolve("fake"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    // STATUS succeeds: the only thing that can fail the probe is the runtime's refusal.
    CniRuntime runtime =
        new CniRuntime(
            (plugin, env, stdin, timeout) -> new ExecResult(0, new byte[0], new byte[0]),
            List.of(bin),
            new ResultCache(dir.resolve("cache")),
            Duration.ofSeconds(5));
    RevisionProbe probe =
        new RevisionProbe(
            runtime,
            new HostLocalReservations(dir.resolve("ipam"), dir.resolve("cache")),
            new ProbeNamespaces(),
            ProbeIdentity.forNode("unit-node"),
            Clock.systemUTC(),
            new ProbeDiagnosis(),
            list -> Optional.of("containerd 1.7 cannot ADD a network whose cniVersion is 1.1.0"));
    RevisionProbe.LiveCheck noLiveCheck =
        network -> {
          throw new AssertionError("CHECK is off for this network");
        };

    ProbeReport runtimeNetwork = probe.prove(network(ConfigDirectory.Runtime), noLiveCheck);
    assertThat(runtimeNetwork.getResult()).isEqualTo(ProbeResult.Failed);
    assertThat(runtimeNetwork.getMessage()).contains("runtime: containerd 1.7");
    ProbeReport multusNetwork = probe.prove(network(ConfigDirectory.Multus), noLiveCheck);
    assertThat(multusNetwork.getResult())
        .as(multusNetwork.getMessage())
        .isEqualTo(ProbeResult.Passed);
  }

  private static ManagedNetwork network(ConfigDirectory directory) {
    byte[] bytes = CONTENT.getBytes(StandardCharsets.UTF_8);
    return new ManagedNetwork(
        new DesiredConflist("sec", "50-sec.conflist", Sha256.hex(bytes), CONTENT, directory),
        null,
        NetworkConfigList.parse(bytes, "sec", ValidationLevel.EXECUTABLE),
        null,
        new NetworkPlugins("sec", "1.1.0", List.of("fake")),
        new CheckSettings(false, Duration.ofSeconds(60)),
        new CleanupSettings(false, Duration.ofSeconds(300), false, 0.5),
        ManagedNetwork.Proof.CHECKS);
  }
}
