package dev.cnioperator.agent.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.network.HostLocalReservations.Reading;
import dev.cnioperator.agent.network.ManagedNetwork.CheckSettings;
import dev.cnioperator.agent.network.ManagedNetwork.CleanupSettings;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.io.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostLocalReservationsTest {
  private static final String NET = "hl-net";

  @TempDir Path dir;

  /** A host-local network; {@code dataDir} null for none. */
  private static String conflist(Path dataDir) {
    return "{\"cniVersion\":\"1.0.0\",\"name\":\""
        + NET
        + "\",\"plugins\":[{\"type\":\"ptp\",\"ipam\":{\"type\":\"host-local\","
        + "\"subnet\":\"10.200.90.0/24\""
        + (dataDir == null ? "" : ",\"dataDir\":\"" + dataDir + "\"")
        + "}}]}";
  }

  private static NetworkConfigList list(Path dataDir) {
    return NetworkConfigList.parse(conflist(dataDir).getBytes(StandardCharsets.UTF_8));
  }

  private static ManagedNetwork network(Path dataDir) {
    String content = conflist(dataDir);
    return new ManagedNetwork(
        new DesiredConflist(
            NET,
            "50-" + NET + ".conflist",
            Sha256.hex(content.getBytes(StandardCharsets.UTF_8)),
            content),
        null,
        list(dataDir),
        null,
        new NetworkPlugins(NET, "1.0.0", List.of("ptp", "host-local")),
        new CheckSettings(true, Duration.ofSeconds(60)),
        new CleanupSettings(true, Duration.ofSeconds(60), false, 0.5),
        ManagedNetwork.Proof.NONE);
  }

  private static CachedAttachment cachedWith(Path dataDir, String containerId) {
    return CachedAttachment.of(
        NET,
        Attachment.of(containerId, "/var/run/netns/" + containerId, "eth0"),
        conflist(dataDir).getBytes(StandardCharsets.UTF_8),
        null);
  }

  /** Writes a reservation as host-local does: the container id, CRLF, the interface name. */
  private static void reserve(Path dataDir, String ip, String containerId) throws IOException {
    Path store = Files.createDirectories(dataDir.resolve(NET));
    Files.writeString(store.resolve(ip), containerId + "\r\neth0");
    Files.writeString(store.resolve("last_reserved_ip.0"), ip);
    Files.writeString(store.resolve("lock"), "");
  }

  @Test
  void withoutDataDirTheStoreIsHostLocalsOwnDefaultWhateverTheCacheDir() {
    HostLocalReservations store =
        new HostLocalReservations(
            HostLocalReservations.DEFAULT_DATA_DIR, Path.of("/srv/cni-cache"));

    assertThat(store.directory(list(null))).contains(Path.of("/var/lib/cni/networks/" + NET));
    assertThat(store.directory(list(dir.resolve("ipam")))).contains(dir.resolve("ipam/" + NET));
  }

  @Test
  void reservationsAreReadFromTheCurrentStoreAndEveryStoreACachedConfigNames() throws Exception {
    Path old = dir.resolve("old");
    Path current = dir.resolve("current");
    reserve(old, "10.200.90.2", "ctr-old-live");
    reserve(old, "10.200.90.3", "ctr-orphan");
    reserve(current, "10.200.90.2", "ctr-new");
    HostLocalReservations store =
        new HostLocalReservations(dir.resolve("default"), dir.resolve("cache"));

    Reading r =
        store.read(
            network(current),
            List.of(cachedWith(old, "ctr-old-live"), cachedWith(current, "ctr-new")));

    assertThat(r.complete()).isTrue();
    assertThat(r.reservations())
        .extracting(Reservation::store, Reservation::ip, Reservation::containerId)
        .containsExactlyInAnyOrder(
            tuple(current.resolve(NET), "10.200.90.2", "ctr-new"),
            tuple(old.resolve(NET), "10.200.90.2", "ctr-old-live"),
            tuple(old.resolve(NET), "10.200.90.3", "ctr-orphan"));
    // Each store's reservations are released through a configuration naming that store.
    assertThat(store.directory(r.configs().get(old.resolve(NET)))).contains(old.resolve(NET));
    assertThat(store.directory(r.configs().get(current.resolve(NET))))
        .contains(current.resolve(NET));
  }

  @Test
  void aMissingNetworkDirectoryUnderAnExistingDataDirIsNothingReserved() throws Exception {
    Path dataDir = Files.createDirectories(dir.resolve("elsewhere/ipam"));

    Reading r = new HostLocalReservations(dataDir, dir.resolve("cache")).read(List.of(list(null)));

    assertThat(r.complete()).isTrue();
    assertThat(r.reservations()).isEmpty();
  }

  @Test
  void aMissingDataDirOutsideTheCacheDirIsUnknownNotEmpty() {
    Path dataDir = dir.resolve("not-mounted/ipam");

    Reading r = new HostLocalReservations(dataDir, dir.resolve("cache")).read(List.of(list(null)));

    assertThat(r.complete()).isFalse();
    assertThat(r.configs()).isEmpty();
    assertThat(r.message())
        .contains("host-local store " + dataDir.resolve(NET) + " cannot be read")
        .contains("dataDir " + dataDir + " does not exist here")
        .contains("not mounted into the agent's container")
        .contains("nothing stored there is released");
  }

  @Test
  void aMissingDataDirInsideTheCacheDirIsNothingReserved() throws Exception {
    Path cacheDir = Files.createDirectories(dir.resolve("var/lib/cni"));

    Reading r =
        new HostLocalReservations(cacheDir.resolve("networks"), cacheDir).read(List.of(list(null)));

    assertThat(r.complete()).isTrue();
    assertThat(r.reservations()).isEmpty();
  }

  @Test
  void aStoreThatCannotBeListedIsReportedWithItsDirectoryAndWhy() throws Exception {
    Path dataDir = Files.createDirectories(dir.resolve("ipam"));
    Files.writeString(dataDir.resolve(NET), "a file where host-local's directory should be");
    Path readable = dir.resolve("readable");
    reserve(readable, "10.200.90.7", "ctr-ok");
    HostLocalReservations store =
        new HostLocalReservations(dir.resolve("default"), dir.resolve("cache"));

    Reading r = store.read(List.of(list(dataDir), list(readable)));

    assertThat(r.unreadable()).containsOnlyKeys(dataDir.resolve(NET));
    assertThat(r.message())
        .isEqualTo(
            "host-local store "
                + dataDir.resolve(NET)
                + " cannot be read (not a directory): nothing stored there is released");
    // The other store is still read, and only it can have its reservations released.
    assertThat(r.reservations()).extracting(Reservation::ip).containsExactly("10.200.90.7");
    assertThat(r.configs()).containsOnlyKeys(readable.resolve(NET));
  }

  @Test
  void anAddressReservedInTwoStoresIsTwoItemsForTheMarks() {
    Reservation a = new Reservation(dir.resolve("a/" + NET), "10.200.90.2", "c1", "eth0");
    Reservation b = new Reservation(dir.resolve("b/" + NET), "10.200.90.2", "c2", "eth0");

    assertThat(a.key()).isNotEqualTo(b.key());
  }
}
