package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.host.DiskHostFiles;
import dev.cnioperator.agent.host.DropInStore;
import dev.cnioperator.agent.host.DropIns;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.cni.config.LibcniNetworks;
import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ChainApplier} holding a chain as drop-ins, on a real directory, planned by ChainSync. */
class ChainApplierDropInTest {
  private static final String FLANNEL =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"bridge\"}]}";
  private static final String DECLARED =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"tuning\"},"
          + "{\"type\":\"bandwidth\"}]}";
  private static final DesiredConflist SHAPING =
      new DesiredConflist(
          "shaping",
          "50-shaping.conflist",
          Sha256.hex(DECLARED.getBytes(StandardCharsets.UTF_8)),
          DECLARED,
          null,
          "cbr0",
          AppendPlacement.DropIn);

  @Test
  void dropInsAreWrittenRecordedAndTakenOutLeavingTheTargetAndTheDirectoryAsTheyWere(
      @TempDir Path root) throws Exception {
    HostPaths paths = HostPaths.under(root, root.resolve("plugins"));
    DiskHostFiles files = new DiskHostFiles();
    ManifestStore store = new ManifestStore(files, paths.manifestFile());
    DropInStore dropIns = new DropInStore(files, paths.dropInsFile());
    Files.createDirectories(paths.confDir());
    Path target = paths.confDir().resolve("10-flannel.conflist");
    Files.writeString(target, FLANNEL);

    ChainApplier.Applied applied = pass(List.of(SHAPING), paths, files, store, dropIns);

    assertThat(applied.outcomes())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.state()).isEqualTo(NetworkState.Applied);
              assertThat(o.appendedAs()).isEqualTo(AppendPlacement.DropIn);
              assertThat(o.message()).contains("cbr0/{50-shaping.00.conf,50-shaping.01.conf}");
            });
    Path dir = paths.confDir().resolve("cbr0");
    assertThat(names(dir)).containsExactly("50-shaping.00.conf", "50-shaping.01.conf");
    assertThat(Files.readString(target)).isEqualTo(FLANNEL);
    // The reload file is written and removed again: nothing of it is left.
    assertThat(names(paths.confDir())).containsExactly("10-flannel.conflist");
    assertThat(dropIns.load().of("shaping")).isPresent();
    assertThat(applied.chains().get("shaping")).isNotNull();

    // The next pass finds them as written: nothing changes.
    long before = Files.getLastModifiedTime(dir.resolve("50-shaping.00.conf")).toMillis();
    pass(List.of(SHAPING), paths, files, store, dropIns);
    assertThat(Files.getLastModifiedTime(dir.resolve("50-shaping.00.conf")).toMillis())
        .isEqualTo(before);

    // The declaration goes: its drop-ins, the record and the directory the agent made go too.
    pass(List.of(), paths, files, store, dropIns);
    assertThat(Files.exists(dir)).isFalse();
    assertThat(dropIns.load()).isEqualTo(DropIns.NONE);
    assertThat(Files.exists(paths.dropInsFile())).isFalse();
    assertThat(Files.readString(target)).isEqualTo(FLANNEL);
  }

  private static ChainApplier.Applied pass(
      List<DesiredConflist> desired,
      HostPaths paths,
      DiskHostFiles files,
      ManifestStore store,
      DropInStore dropIns)
      throws Exception {
    Manifest manifest = store.load();
    DropIns written = dropIns.load();
    List<ChainAction> actions =
        new ChainSync()
            .plan(
                desired,
                Map.of(),
                (d, v) -> Optional.empty(),
                manifest,
                written,
                RuntimeDropIns.LOADS,
                read(paths.confDir()));
    return new ChainApplier(files, store, paths).apply(actions, manifest, written);
  }

  private static LibcniNetworks.Directory read(Path confDir) throws Exception {
    SortedMap<String, byte[]> top = new TreeMap<>();
    SortedMap<String, byte[]> inCbr0 = new TreeMap<>();
    for (String name : names(confDir)) {
      top.put(name, Files.readAllBytes(confDir.resolve(name)));
    }
    for (String name : names(confDir.resolve("cbr0"))) {
      inCbr0.put(name, Files.readAllBytes(confDir.resolve("cbr0").resolve(name)));
    }
    return new LibcniNetworks.Directory(top, Map.of("cbr0", inCbr0));
  }

  private static List<String> names(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
