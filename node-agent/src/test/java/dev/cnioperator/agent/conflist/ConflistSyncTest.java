package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.conflist.ConflistAction.Conflict;
import dev.cnioperator.agent.conflist.ConflistAction.Forget;
import dev.cnioperator.agent.conflist.ConflistAction.Hold;
import dev.cnioperator.agent.conflist.ConflistAction.Keep;
import dev.cnioperator.agent.conflist.ConflistAction.Reject;
import dev.cnioperator.agent.conflist.ConflistAction.Remove;
import dev.cnioperator.agent.conflist.ConflistAction.Write;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.WriteReason;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConflistSyncTest {
  private static final ConfigDirectory RUNTIME = ConfigDirectory.Runtime;
  private static final ConfigDirectory MULTUS = ConfigDirectory.Multus;
  private final ConflistSync sync = new ConflistSync();

  private static DesiredConflist net(String name, String content) {
    return new DesiredConflist(name, "50-" + name + ".conflist", sha(content), content);
  }

  private static String sha(String s) {
    return Sha256.hex(s.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code disk}: the content of each file on disk, by file name. */
  private List<ConflistAction> plan(
      List<DesiredConflist> desired, Manifest manifest, Map<String, String> disk) {
    return sync.plan(desired, Map.of(), manifest, bytes(Map.of(RUNTIME, disk)));
  }

  private static Map<ConfigDirectory, Map<String, byte[]>> bytes(
      Map<ConfigDirectory, Map<String, String>> contents) {
    Map<ConfigDirectory, Map<String, byte[]>> bytes = new EnumMap<>(ConfigDirectory.class);
    contents.forEach(
        (dir, files) -> {
          Map<String, byte[]> inDir = new HashMap<>();
          files.forEach(
              (name, content) -> inDir.put(name, content.getBytes(StandardCharsets.UTF_8)));
          bytes.put(dir, inDir);
        });
    return bytes;
  }

  @Test
  void newNetworkAbsentFromDiskAndManifestIsCreated() {
    DesiredConflist a = net("a", "{1}");
    assertThat(plan(List.of(a), Manifest.empty(), Map.of()))
        .containsExactly(new Write(a, WriteReason.CREATE));
  }

  @Test
  void foreignFileOfTheSameNameIsAConflictAndNotWritten() {
    DesiredConflist a = net("a", "{1}");
    assertThat(plan(List.of(a), Manifest.empty(), Map.of(a.fileName(), "{theirs}")))
        .singleElement()
        .isInstanceOf(Conflict.class);
  }

  @Test
  void foreignFileWithIdenticalBytesIsStillAConflict() {
    DesiredConflist a = net("a", "{1}");
    assertThat(plan(List.of(a), Manifest.empty(), Map.of(a.fileName(), a.content())))
        .singleElement()
        .isInstanceOf(Conflict.class);
  }

  @Test
  void ownedFileInSyncIsKept() {
    DesiredConflist a = net("a", "{1}");
    Manifest m = Manifest.empty().withConflist(RUNTIME, a.fileName(), a.sha256(), "a");
    assertThat(plan(List.of(a), m, Map.of(a.fileName(), a.content()))).containsExactly(new Keep(a));
  }

  @Test
  void ownedFileAtAnOlderVersionIsUpdated() {
    DesiredConflist a = net("a", "{2}");
    Manifest m = Manifest.empty().withConflist(RUNTIME, a.fileName(), sha("{1}"), "a");
    assertThat(plan(List.of(a), m, Map.of(a.fileName(), "{1}")))
        .containsExactly(new Write(a, WriteReason.UPDATE));
  }

  @Test
  void ownedFileChangedBySomeoneElseIsRestoredAsDrift() {
    DesiredConflist a = net("a", "{1}");
    Manifest m = Manifest.empty().withConflist(RUNTIME, a.fileName(), a.sha256(), "a");
    List<ConflistAction> actions = plan(List.of(a), m, Map.of(a.fileName(), "{edited}"));
    assertThat(actions).containsExactly(new Write(a, WriteReason.RESTORE_CHANGED));
    assertThat(((Write) actions.get(0)).reason().isDrift()).isTrue();
  }

  @Test
  void ownedFileRemovedBySomeoneElseIsRestoredAsDrift() {
    DesiredConflist a = net("a", "{1}");
    Manifest m = Manifest.empty().withConflist(RUNTIME, a.fileName(), a.sha256(), "a");
    assertThat(plan(List.of(a), m, Map.of()))
        .containsExactly(new Write(a, WriteReason.RESTORE_REMOVED));
  }

  @Test
  void writeInterruptedAfterTheManifestLeavesThePreviousVersionWhichIsNotDrift() {
    DesiredConflist a = net("a", "{2}");
    // The manifest already names {2} (saved before the rename), the disk still holds {1}.
    Manifest m =
        Manifest.empty()
            .withConflist(RUNTIME, a.fileName(), sha("{1}"), "a")
            .withConflist(RUNTIME, a.fileName(), a.sha256(), "a");
    assertThat(plan(List.of(a), m, Map.of(a.fileName(), "{1}")))
        .containsExactly(new Write(a, WriteReason.UPDATE));
  }

  @Test
  void managedFileNoLongerListedIsRemoved() {
    Manifest m = Manifest.empty().withConflist(RUNTIME, "50-old.conflist", sha("{1}"), "old");
    assertThat(plan(List.of(), m, Map.of("50-old.conflist", "{1}")))
        .containsExactly(new Remove(RUNTIME, "50-old.conflist"));
  }

  @Test
  void managedFileNoLongerListedAndAlreadyGoneIsForgotten() {
    Manifest m = Manifest.empty().withConflist(RUNTIME, "50-old.conflist", sha("{1}"), "old");
    assertThat(plan(List.of(), m, Map.of()))
        .singleElement()
        .isInstanceOfSatisfying(
            Forget.class, f -> assertThat(f.fileName()).isEqualTo("50-old.conflist"));
  }

  @Test
  void managedFileNoLongerListedButEditedBySomeoneElseIsLeftInPlace() {
    Manifest m = Manifest.empty().withConflist(RUNTIME, "50-old.conflist", sha("{1}"), "old");
    assertThat(plan(List.of(), m, Map.of("50-old.conflist", "{edited}")))
        .singleElement()
        .isInstanceOf(Forget.class);
  }

  @Test
  void foreignFilesNotInTheManifestAreNeverTouched() {
    assertThat(plan(List.of(), Manifest.empty(), Map.of("10-calico.conflist", "x"))).isEmpty();
  }

  @Test
  void contentThatDoesNotMatchItsSha256IsRejected() {
    DesiredConflist bad = new DesiredConflist("a", "50-a.conflist", sha("{other}"), "{1}");
    assertThat(plan(List.of(bad), Manifest.empty(), Map.of()))
        .singleElement()
        .isInstanceOfSatisfying(Reject.class, r -> assertThat(r.message()).contains("sha256"));
  }

  @Test
  void fileNameWithADirectoryIsRejected() {
    DesiredConflist bad = new DesiredConflist("a", "../a.conflist", sha("{1}"), "{1}");
    assertThat(plan(List.of(bad), Manifest.empty(), Map.of()))
        .singleElement()
        .isInstanceOfSatisfying(
            Reject.class, r -> assertThat(r.message()).contains("fileName ../a.conflist"));
  }

  @Test
  void secondNetworkClaimingTheSameFileNameIsRejected() {
    DesiredConflist a = net("a", "{1}");
    DesiredConflist b = new DesiredConflist("b", a.fileName(), sha("{2}"), "{2}");
    List<ConflistAction> actions = plan(List.of(a, b), Manifest.empty(), Map.of());
    assertThat(actions.get(0)).isEqualTo(new Write(a, WriteReason.CREATE));
    assertThat(actions.get(1)).isInstanceOf(Reject.class);
  }

  @Test
  void heldBackNetworkKeepsItsOldFileAndIsNotRemoved() {
    DesiredConflist a = net("a", "{2}");
    Manifest m = Manifest.empty().withConflist(RUNTIME, a.fileName(), sha("{1}"), "a");
    List<ConflistAction> actions =
        sync.plan(
            List.of(a),
            Map.of("a", "plugin macvlan missing"),
            m,
            bytes(Map.of(RUNTIME, Map.of(a.fileName(), "{1}"))));
    assertThat(actions).containsExactly(new Hold(a, "plugin macvlan missing"));
  }

  @Test
  void anEntryTheNodeCannotHaveYetHasNoContentAndKeepsTheOldFile() {
    // The operator could not render it for this node (a value is missing): no content, no sha256.
    DesiredConflist a = new DesiredConflist("a", "50-a.conflist", null, "");
    Manifest m = Manifest.empty().withConflist(RUNTIME, a.fileName(), sha("{1}"), "a");
    String why = "node n1 has no spec.podCIDR";
    List<ConflistAction> actions =
        sync.plan(
            List.of(a), Map.of("a", why), m, bytes(Map.of(RUNTIME, Map.of(a.fileName(), "{1}"))));
    assertThat(actions).containsExactly(new Hold(a, why));
  }

  private static DesiredConflist multus(String name, String content) {
    return new DesiredConflist(name, "50-" + name + ".conflist", sha(content), content, MULTUS);
  }

  @Test
  void aMultusNetworkIsPlannedInMultussDirectoryOnly() {
    DesiredConflist m = multus("m", "{1}");
    // A foreign file of that name in the runtime's directory is none of its business.
    assertThat(
            sync.plan(
                List.of(m),
                Map.of(),
                Manifest.empty(),
                bytes(Map.of(RUNTIME, Map.of(m.fileName(), "{theirs}")))))
        .containsExactly(new Write(m, WriteReason.CREATE));
  }

  @Test
  void aForeignFileOfTheSameNameInMultussDirectoryIsAConflictNamingTheDirectory() {
    DesiredConflist m = multus("m", "{1}");
    // The agent owning that name in the runtime's directory does not make Multus's file its own.
    Manifest owned = Manifest.empty().withConflist(RUNTIME, m.fileName(), sha("{theirs}"), "x");
    assertThat(
            sync.plan(
                List.of(m),
                Map.of(),
                owned,
                bytes(
                    Map.of(
                        RUNTIME, Map.of(m.fileName(), "{theirs}"),
                        MULTUS, Map.of(m.fileName(), "{theirs}")))))
        .first()
        .isInstanceOfSatisfying(
            Conflict.class,
            c -> assertThat(c.message()).contains("Multus's configuration directory"));
  }

  @Test
  void ownershipRulesHoldInMultussDirectory() {
    DesiredConflist m = multus("m", "{2}");
    Manifest owned =
        Manifest.empty()
            .withConflist(MULTUS, m.fileName(), sha("{1}"), "m")
            .withConflist(MULTUS, "50-old.conflist", sha("{o}"), "old")
            .withConflist(MULTUS, "50-gone.conflist", sha("{g}"), "gone");
    assertThat(
            sync.plan(
                List.of(m),
                Map.of(),
                owned,
                bytes(Map.of(MULTUS, Map.of(m.fileName(), "{1}", "50-old.conflist", "{o}")))))
        .containsExactly(
            new Write(m, WriteReason.UPDATE),
            new Forget(MULTUS, "50-gone.conflist", "already gone from disk"),
            new Remove(MULTUS, "50-old.conflist"));
    assertThat(
            sync.plan(
                List.of(m),
                Map.of(),
                owned,
                bytes(Map.of(MULTUS, Map.of(m.fileName(), "{edited}")))))
        .first()
        .isEqualTo(new Write(m, WriteReason.RESTORE_CHANGED));
  }

  @Test
  void aNetworkThatMovesToTheOtherDirectoryIsWrittenThereAndRemovedFromTheOldOne() {
    DesiredConflist runtime = net("a", "{1}");
    DesiredConflist moved = multus("a", "{1}");
    Manifest inRuntime =
        Manifest.empty().withConflist(RUNTIME, runtime.fileName(), sha("{1}"), "a");
    assertThat(
            sync.plan(
                List.of(moved),
                Map.of(),
                inRuntime,
                bytes(Map.of(RUNTIME, Map.of(runtime.fileName(), "{1}")))))
        .containsExactly(
            new Write(moved, WriteReason.CREATE), new Remove(RUNTIME, runtime.fileName()));

    Manifest inMultus = Manifest.empty().withConflist(MULTUS, moved.fileName(), sha("{1}"), "a");
    assertThat(
            sync.plan(
                List.of(runtime),
                Map.of(),
                inMultus,
                bytes(Map.of(MULTUS, Map.of(moved.fileName(), "{1}")))))
        .containsExactly(
            new Write(runtime, WriteReason.CREATE), new Remove(MULTUS, moved.fileName()));
  }

  @Test
  void theSameFileNameInBothDirectoriesIsNotListedTwice() {
    DesiredConflist a = net("a", "{1}");
    DesiredConflist b = new DesiredConflist("b", a.fileName(), sha("{2}"), "{2}", MULTUS);
    assertThat(plan(List.of(a, b), Manifest.empty(), Map.of()))
        .containsExactly(new Write(a, WriteReason.CREATE), new Write(b, WriteReason.CREATE));
  }

  // Another installer appends its plugin to the agent's file (AppendedTest has the file forms).

  private static final String OWN = AppendedTest.OWN;
  private static final String CHAINED = AppendedTest.ISTIO_CHAINED;
  private static final String NEXT = OWN.replace("10.22.0.0/24", "10.23.0.0/24");

  private static DesiredConflist podnet(String content) {
    return new DesiredConflist("podnet", "10-podnet.conflist", sha(content), content);
  }

  private static Manifest wrote(DesiredConflist d, String bytes) {
    return Manifest.empty()
        .withConflist(RUNTIME, d.fileName(), sha(bytes), d.network(), d.content());
  }

  private static Appended istio() {
    return Appended.after(OWN, CHAINED.getBytes(StandardCharsets.UTF_8)).orElseThrow();
  }

  @Test
  void pluginsAnotherInstallerAppendedAreKeptNotRestored() {
    DesiredConflist d = podnet(OWN);
    assertThat(plan(List.of(d), wrote(d, OWN), Map.of(d.fileName(), CHAINED)))
        .containsExactly(new Keep(d, istio(), sha(CHAINED)));
  }

  @Test
  void aNewRevisionCarriesTheAppendedPluginsIntoTheFile() {
    DesiredConflist next = podnet(NEXT);
    // The manifest names the previous revision and its content; the installer appended to it.
    Manifest m = wrote(podnet(OWN), OWN);
    assertThat(plan(List.of(next), m, Map.of(next.fileName(), CHAINED)))
        .containsExactly(new Write(next, WriteReason.UPDATE, istio()));
  }

  @Test
  void theAgentsOwnFileWithCarriedPluginsIsKeptAndCarriedAgain() {
    DesiredConflist d = podnet(OWN);
    String carried = new String(istio().onto(d), StandardCharsets.UTF_8);
    assertThat(plan(List.of(d), wrote(d, carried), Map.of(d.fileName(), carried)))
        .containsExactly(new Keep(d, istio(), sha(carried)));
    DesiredConflist next = podnet(NEXT);
    assertThat(plan(List.of(next), wrote(d, carried), Map.of(d.fileName(), carried)))
        .containsExactly(new Write(next, WriteReason.UPDATE, istio()));
  }

  @Test
  void anOwnEntryEditedBesideAnAppendedOneIsDriftAndTheFileIsRestoredWithoutIt() {
    DesiredConflist d = podnet(OWN);
    String edited = CHAINED.replace("\"mtu\":1500", "\"mtu\":9000");
    assertThat(plan(List.of(d), wrote(d, OWN), Map.of(d.fileName(), edited)))
        .containsExactly(new Write(d, WriteReason.RESTORE_CHANGED));
  }

  @Test
  void theOwnContentReMarshalledWithNothingAppendedIsRestoredToItsBytes() {
    DesiredConflist d = podnet(OWN);
    String remarshalled = CHAINED.replaceFirst(",\\{\"kubernetes\".*\\}\\]\\}", "]}");
    assertThat(Appended.after(OWN, remarshalled.getBytes(StandardCharsets.UTF_8)))
        .contains(Appended.NONE);
    assertThat(plan(List.of(d), wrote(d, OWN), Map.of(d.fileName(), remarshalled)))
        .containsExactly(new Write(d, WriteReason.RESTORE_CHANGED));
  }

  @Test
  void aFileWithAppendedPluginsIsRemovedWithItsNetwork() {
    DesiredConflist d = podnet(OWN);
    assertThat(plan(List.of(), wrote(d, OWN), Map.of(d.fileName(), CHAINED)))
        .containsExactly(new Remove(RUNTIME, d.fileName()));
  }

  @Test
  void aManifestWithoutContentComparesWithTheCurrentRevision() {
    // Written by an agent older than the content field: the current revision is all it knows.
    DesiredConflist d = podnet(OWN);
    Manifest old = Manifest.empty().withConflist(RUNTIME, d.fileName(), d.sha256(), "podnet");
    assertThat(plan(List.of(d), old, Map.of(d.fileName(), CHAINED)))
        .containsExactly(new Keep(d, istio(), sha(CHAINED)));
  }
}
