package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.conflist.ChainAction.Append;
import dev.cnioperator.agent.conflist.ChainAction.PlaceDropIns;
import dev.cnioperator.agent.conflist.ChainAction.RemoveDropIns;
import dev.cnioperator.agent.conflist.ChainAction.Unappend;
import dev.cnioperator.agent.conflist.ChainAction.Waiting;
import dev.cnioperator.agent.host.AppendedChain;
import dev.cnioperator.agent.host.DropIns;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.cni.config.CanonicalJson;
import dev.cnioperator.cni.config.LibcniNetworks;
import dev.cnioperator.cni.io.CniJson;
import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@link ChainSync}'s choice of placement, and the drop-in placement, on values. */
class ChainSyncDropInTest {
  private static final String FLANNEL =
      "{\"cniVersion\":\"0.3.1\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"flannel\"},"
          + "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}]}";
  private static final String DECLARED =
      "{\"cniVersion\":\"0.3.1\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"tuning\",\"mtu\":1400},"
          + "{\"type\":\"bandwidth\",\"capabilities\":{\"bandwidth\":true}}]}";

  /** The declared entries as the agent writes them, one per drop-in. */
  private static final String TUNING = canonical("{\"type\":\"tuning\",\"mtu\":1400}");

  private static final String BANDWIDTH =
      canonical("{\"type\":\"bandwidth\",\"capabilities\":{\"bandwidth\":true}}");
  private static final DesiredConflist DROP_IN = shaping(AppendPlacement.DropIn);
  private static final RuntimeDropIns OLD_CONTAINERD = RuntimeDropIns.of("containerd", "1.7.24");

  private final ChainSync sync = new ChainSync();

  private static String canonical(String json) {
    return new String(
        CanonicalJson.render(CniJson.object(json.getBytes(StandardCharsets.UTF_8)).orElseThrow()),
        StandardCharsets.UTF_8);
  }

  private static DesiredConflist shaping(AppendPlacement as) {
    return new DesiredConflist(
        "shaping",
        "50-shaping.conflist",
        Sha256.hex(DECLARED.getBytes(StandardCharsets.UTF_8)),
        DECLARED,
        null,
        "cbr0",
        as);
  }

  private List<ChainAction> plan(
      DesiredConflist d,
      Manifest manifest,
      DropIns dropIns,
      RuntimeDropIns runtime,
      Map<String, String> files,
      Map<String, String> inCbr0) {
    return sync.plan(
        d == null ? List.of() : List.of(d),
        Map.of(),
        (x, v) -> Optional.empty(),
        manifest,
        dropIns,
        runtime,
        new LibcniNetworks.Directory(bytes(files), Map.of("cbr0", bytes(inCbr0))));
  }

  private static SortedMap<String, byte[]> bytes(Map<String, String> files) {
    SortedMap<String, byte[]> out = new TreeMap<>();
    files.forEach((k, v) -> out.put(k, v.getBytes(StandardCharsets.UTF_8)));
    return out;
  }

  private static List<String> types(byte[] content) throws Exception {
    return CniJson.MAPPER.readTree(content).get("plugins").findValuesAsText("type");
  }

  /** The record the agent saves after writing this network's drop-ins. */
  private static DropIns written(String... names) {
    SortedMap<String, String> files = new TreeMap<>();
    Map<String, String> content =
        Map.of("50-shaping.00.conf", TUNING, "50-shaping.01.conf", BANDWIDTH);
    for (String n : names) {
      files.put(n, Sha256.hex(content.get(n).getBytes(StandardCharsets.UTF_8)));
    }
    return DropIns.NONE.with("shaping", new DropIns.Files("cbr0", files));
  }

  @Test
  void onARuntimeThatLoadsDropInsTheEntriesAreDropInsAndTheTargetIsNotTouched() throws Exception {
    List<ChainAction> actions =
        plan(
            DROP_IN,
            Manifest.empty(),
            DropIns.NONE,
            RuntimeDropIns.of("containerd", "v2.4.2"),
            Map.of("10-flannel.conflist", FLANNEL),
            Map.of());
    assertThat(actions).singleElement().isInstanceOf(PlaceDropIns.class);
    PlaceDropIns p = (PlaceDropIns) actions.get(0);
    assertThat(p.targetFile()).isEqualTo("10-flannel.conflist");
    assertThat(p.target()).isEqualTo("cbr0");
    assertThat(p.write()).containsOnlyKeys("50-shaping.00.conf", "50-shaping.01.conf");
    assertThat(new String(p.write().get("50-shaping.00.conf"), StandardCharsets.UTF_8))
        .isEqualTo(TUNING);
    assertThat(p.stale()).isEmpty();
    assertThat(p.restored()).isFalse();
    assertThat(types(p.runs())).containsExactly("flannel", "portmap", "tuning", "bandwidth");
  }

  @Test
  void dropInsAsTheAgentWroteThemNeedNoWriteAndOthersDropInsRunInFileNameOrder() throws Exception {
    List<ChainAction> actions =
        plan(
            DROP_IN,
            Manifest.empty(),
            written("50-shaping.00.conf", "50-shaping.01.conf"),
            RuntimeDropIns.LOADS,
            Map.of("10-flannel.conflist", FLANNEL),
            Map.of(
                "50-shaping.00.conf",
                TUNING,
                "50-shaping.01.conf",
                BANDWIDTH,
                "00-mesh.conf",
                "{\"type\":\"mesh\"}",
                "99-last.conf",
                "{\"type\":\"last\"}"));
    PlaceDropIns p = (PlaceDropIns) actions.get(0);
    assertThat(p.write()).isEmpty();
    assertThat(p.stale()).isEmpty();
    assertThat(types(p.runs()))
        .containsExactly("flannel", "portmap", "mesh", "tuning", "bandwidth", "last");
  }

  @Test
  void aDropInTheAgentWroteAndSomeoneRemovedIsPutBackAsARestore() {
    PlaceDropIns p =
        (PlaceDropIns)
            plan(
                    DROP_IN,
                    Manifest.empty(),
                    written("50-shaping.00.conf", "50-shaping.01.conf"),
                    RuntimeDropIns.LOADS,
                    Map.of("10-flannel.conflist", FLANNEL),
                    Map.of("50-shaping.00.conf", TUNING))
                .get(0);
    assertThat(p.write()).containsOnlyKeys("50-shaping.01.conf");
    assertThat(p.restored()).isTrue();
  }

  @Test
  void aDropInNoLongerDeclaredIsRemovedWhenItIsAsTheAgentWroteIt() {
    DropIns before =
        DropIns.NONE.with(
            "shaping",
            new DropIns.Files(
                "cbr0",
                new TreeMap<>(
                    Map.of(
                        "50-shaping.00.conf", Sha256.hex(TUNING.getBytes(StandardCharsets.UTF_8)),
                        "50-shaping.02.conf",
                            Sha256.hex("{\"type\":\"x\"}".getBytes(StandardCharsets.UTF_8))))));
    PlaceDropIns p =
        (PlaceDropIns)
            plan(
                    DROP_IN,
                    Manifest.empty(),
                    before,
                    RuntimeDropIns.LOADS,
                    Map.of("10-flannel.conflist", FLANNEL),
                    Map.of("50-shaping.00.conf", TUNING, "50-shaping.02.conf", "{\"type\":\"x\"}"))
                .get(0);
    assertThat(p.write()).containsOnlyKeys("50-shaping.01.conf");
    assertThat(p.stale()).containsExactly("50-shaping.02.conf");
    assertThat(p.restored()).isFalse();
  }

  @Test
  void onContainerdBefore21TheEntriesAreAppendedInPlaceAndTheStatusSaysWhy() throws Exception {
    List<ChainAction> actions =
        plan(
            DROP_IN,
            Manifest.empty(),
            DropIns.NONE,
            OLD_CONTAINERD,
            Map.of("10-flannel.conflist", FLANNEL),
            Map.of());
    assertThat(actions).singleElement().isInstanceOf(Append.class);
    Append a = (Append) actions.get(0);
    assertThat(types(a.content())).containsExactly("flannel", "portmap", "tuning", "bandwidth");
    assertThat(a.note()).contains("containerd 1.7.24").contains("libcni older than 1.3");
  }

  @Test
  void criOIsHeldInPlaceForItDeletesWithoutDropIns() {
    assertThat(RuntimeDropIns.of("cri-o", "1.34.0").kind())
        .isEqualTo(RuntimeDropIns.Kind.NOT_LOADED);
    assertThat(RuntimeDropIns.of("cri-o", "1.34.0").why()).contains("DEL");
  }

  @Test
  void containerdLoadsDropInsFrom21On() {
    assertThat(RuntimeDropIns.of("containerd", "v2.1.0").kind())
        .isEqualTo(RuntimeDropIns.Kind.LOADS);
    assertThat(RuntimeDropIns.of("containerd", "2.1.0+unknown").kind())
        .isEqualTo(RuntimeDropIns.Kind.LOADS);
    assertThat(RuntimeDropIns.of("containerd", "v3.0.0").kind())
        .isEqualTo(RuntimeDropIns.Kind.LOADS);
    assertThat(RuntimeDropIns.of("containerd", "v2.0.5").kind())
        .isEqualTo(RuntimeDropIns.Kind.NOT_LOADED);
    assertThat(RuntimeDropIns.of("containerd", "1.6.20~ds1").kind())
        .isEqualTo(RuntimeDropIns.Kind.NOT_LOADED);
    assertThat(RuntimeDropIns.of("containerd", "").kind())
        .isEqualTo(RuntimeDropIns.Kind.NOT_LOADED);
  }

  @Test
  void whileTheRuntimesVersionIsUnknownNothingIsMoved() {
    List<ChainAction> actions =
        plan(
            DROP_IN,
            Manifest.empty(),
            DropIns.NONE,
            RuntimeDropIns.unknown("no answer"),
            Map.of("10-flannel.conflist", FLANNEL),
            Map.of());
    assertThat(actions).singleElement().isInstanceOf(Waiting.class);
    assertThat(((Waiting) actions.get(0)).why()).contains("not known").contains("no answer");
  }

  @Test
  void aTargetThatLoadsOnlyInlinedPluginsIsEditedInPlace() {
    String inlinedOnly =
        FLANNEL.replace("{\"cniVersion\"", "{\"loadOnlyInlinedPlugins\":true,\"cniVersion\"");
    Append a =
        (Append)
            plan(
                    DROP_IN,
                    Manifest.empty(),
                    DropIns.NONE,
                    RuntimeDropIns.LOADS,
                    Map.of("10-flannel.conflist", inlinedOnly),
                    Map.of())
                .get(0);
    assertThat(a.note()).contains("loadOnlyInlinedPlugins");
  }

  @Test
  void entriesHeldInPlaceMoveToDropInsAndComeOutOfTheFileAfter() throws Exception {
    Append first =
        (Append)
            plan(
                    shaping(AppendPlacement.InPlace),
                    Manifest.empty(),
                    DropIns.NONE,
                    RuntimeDropIns.LOADS,
                    Map.of("10-flannel.conflist", FLANNEL),
                    Map.of())
                .get(0);
    assertThat(first.note()).isEmpty();
    Manifest manifest =
        Manifest.empty()
            .withChain(
                "shaping",
                new AppendedChain(
                    "10-flannel.conflist", first.entries(), Sha256.hex(first.content())));
    List<ChainAction> actions =
        plan(
            DROP_IN,
            manifest,
            DropIns.NONE,
            RuntimeDropIns.LOADS,
            Map.of("10-flannel.conflist", new String(first.content(), StandardCharsets.UTF_8)),
            Map.of());
    assertThat(actions).hasSize(2);
    PlaceDropIns p = (PlaceDropIns) actions.get(0);
    // What runs once the file is as its product wrote it again: the entries once, as drop-ins.
    assertThat(types(p.runs())).containsExactly("flannel", "portmap", "tuning", "bandwidth");
    Unappend u = (Unappend) actions.get(1);
    assertThat(types(u.content())).containsExactly("flannel", "portmap");
  }

  @Test
  void dropInsComeOutBeforeTheEntriesGoBackInPlace() throws Exception {
    List<ChainAction> actions =
        plan(
            shaping(AppendPlacement.InPlace),
            Manifest.empty(),
            written("50-shaping.00.conf", "50-shaping.01.conf"),
            RuntimeDropIns.LOADS,
            Map.of("10-flannel.conflist", FLANNEL),
            Map.of("50-shaping.00.conf", TUNING, "50-shaping.01.conf", BANDWIDTH));
    assertThat(actions).hasSize(2);
    RemoveDropIns r = (RemoveDropIns) actions.get(0);
    assertThat(r.files()).containsExactly("50-shaping.00.conf", "50-shaping.01.conf");
    Append a = (Append) actions.get(1);
    // The runtime never runs the entries twice: the drop-ins are not counted in what runs.
    assertThat(types(a.runs())).containsExactly("flannel", "portmap", "tuning", "bandwidth");
  }

  @Test
  void aDeclarationGoneTakesItsDropInsOutButLeavesOnesSomeoneChanged() {
    List<ChainAction> actions =
        plan(
            null,
            Manifest.empty(),
            written("50-shaping.00.conf", "50-shaping.01.conf"),
            RuntimeDropIns.LOADS,
            Map.of("10-flannel.conflist", FLANNEL),
            Map.of("50-shaping.00.conf", TUNING, "50-shaping.01.conf", "{\"type\":\"edited\"}"));
    assertThat(actions).singleElement().isInstanceOf(RemoveDropIns.class);
    RemoveDropIns r = (RemoveDropIns) actions.get(0);
    assertThat(r.files()).containsExactly("50-shaping.00.conf");
    assertThat(r.changed()).containsExactly("50-shaping.01.conf");
  }
}
