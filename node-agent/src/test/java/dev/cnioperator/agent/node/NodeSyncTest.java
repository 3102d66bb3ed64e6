package dev.cnioperator.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.agent.conflist.RuntimeDropIns;
import dev.cnioperator.agent.host.DiskHostFiles;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.plugin.PluginInstaller;
import dev.cnioperator.agent.plugin.PluginVersions;
import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.cni.io.CniJson;
import dev.cnioperator.cni.io.Sha256;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@link NodeSync} pass after another on a temporary directory, its collaborators passed in: a
 * network of its own file beside another product's network, and a chain declared onto that one as
 * drop-ins.
 */
class NodeSyncTest {
  private static final String FLANNEL =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"bridge\"},"
          + "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}]}";
  private static final String OWN =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"lan\",\"plugins\":[{\"type\":\"bridge\","
          + "\"bridge\":\"lan0\",\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.9.0.0/24\"}}]}";
  private static final String DECLARED =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"tuning\",\"mtu\":1400},"
          + "{\"type\":\"bandwidth\",\"capabilities\":{\"bandwidth\":true}}]}";

  private static NodeNetwork network(String name, String fileName, String content) {
    return new NodeNetwork()
        .setName(name)
        .setFileName(fileName)
        .setContent(content)
        .setSha256(Sha256.hex(content.getBytes(StandardCharsets.UTF_8)));
  }

  private static List<ManagedNetwork> spec(NodeNetwork... networks) {
    return new NodeSpecReader().networks(new CniNodeSpec().setNetworks(List.of(networks)));
  }

  private static NodeSync sync(HostPaths paths) throws Exception {
    DiskHostFiles files = new DiskHostFiles();
    ManifestStore store = new ManifestStore(files, paths.manifestFile());
    Files.createDirectories(paths.bundledPluginDir());
    for (String plugin : List.of("bridge", "host-local", "tuning", "bandwidth")) {
      Files.writeString(paths.bundledPluginDir().resolve(plugin), plugin + " binary");
    }
    NodeSync sync =
        new NodeSync(
            paths,
            files,
            store,
            new PluginInstaller(
                files,
                store,
                paths.binDir(),
                paths.bundledPluginDir(),
                HttpClient::newHttpClient,
                Clock.systemUTC()),
            new PluginVersions(name -> List.of("0.3.1", "0.4.0", "1.0.0", "1.1.0")),
            Clock.systemUTC(),
            () -> RuntimeDropIns.LOADS);
    sync.prepare();
    return sync;
  }

  @Test
  void aPassWritesItsOwnFileAndTheDeclaredChainAsDropInsAndTheNextChangesNothing(@TempDir Path root)
      throws Exception {
    HostPaths paths = HostPaths.under(root, root.resolve("bundled"));
    NodeSync sync = sync(paths);
    Path flannel = paths.confDir().resolve("10-flannel.conflist");
    Files.writeString(flannel, FLANNEL);
    NodeNetwork chain =
        network("shaping", "50-shaping.conflist", DECLARED)
            .setAppendTo("cbr0")
            .setAppendAs(AppendPlacement.DropIn);
    List<ManagedNetwork> networks = spec(network("lan", "60-lan.conflist", OWN), chain);

    NodeSync.Result first = sync.sync(networks, Map.of());

    assertThat(first.networks())
        .extracting(NetworkOutcome::network, NetworkOutcome::state)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("lan", NetworkState.Applied),
            org.assertj.core.groups.Tuple.tuple("shaping", NetworkState.Applied));
    assertThat(Files.readString(paths.confDir().resolve("60-lan.conflist"))).isEqualTo(OWN);
    assertThat(Files.readString(flannel)).isEqualTo(FLANNEL);
    assertThat(names(paths.confDir().resolve("cbr0")))
        .containsExactly("50-shaping.00.conf", "50-shaping.01.conf");
    assertThat(CniJson.MAPPER.readTree(first.chains().get("shaping")).findValuesAsText("type"))
        .containsExactly("bridge", "portmap", "tuning", "bandwidth");
    assertThat(first.defaultNetwork()).isEqualTo("cbr0");
    assertThat(first.podNetworkChain()).containsExactly("shaping");
    assertThat(first.passing()).isFalse();

    long written =
        Files.getLastModifiedTime(paths.confDir().resolve("cbr0/50-shaping.00.conf")).toMillis();
    NodeSync.Result second = sync.sync(networks, Map.of());
    assertThat(second.networks()).extracting(NetworkOutcome::drift).containsOnly(false);
    assertThat(
            Files.getLastModifiedTime(paths.confDir().resolve("cbr0/50-shaping.00.conf"))
                .toMillis())
        .isEqualTo(written);

    // Someone removes a drop-in: the next pass puts it back, as a restore.
    Files.delete(paths.confDir().resolve("cbr0/50-shaping.01.conf"));
    NodeSync.Result third = sync.sync(networks, Map.of());
    assertThat(third.networks().get(1).drift()).isTrue();
    assertThat(names(paths.confDir().resolve("cbr0")))
        .containsExactly("50-shaping.00.conf", "50-shaping.01.conf");

    // Both go from the spec: the node holds the other product's file alone, as it found it.
    NodeSync.Result gone = sync.sync(List.of(), Map.of());
    assertThat(gone.removedNetworks()).containsExactly("lan");
    assertThat(names(paths.confDir())).containsExactly("10-flannel.conflist");
    assertThat(Files.exists(paths.confDir().resolve("cbr0"))).isFalse();
    assertThat(Files.readString(flannel)).isEqualTo(FLANNEL);
  }

  private static List<String> names(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
