package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.agent.conflist.ChainAction.Append;
import dev.cnioperator.agent.conflist.ChainAction.Drop;
import dev.cnioperator.agent.conflist.ChainAction.InPlace;
import dev.cnioperator.agent.conflist.ChainAction.Unappend;
import dev.cnioperator.agent.conflist.ChainAction.Waiting;
import dev.cnioperator.agent.host.AppendedChain;
import dev.cnioperator.agent.host.Manifest;
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

class ChainSyncTest {
  private static final String FLANNEL =
      "{\"cniVersion\":\"0.3.1\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"flannel\","
          + "\"delegate\":{\"hairpinMode\":true,\"isDefaultGateway\":true}},"
          + "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}]}";
  private static final String DECLARED =
      "{\"cniVersion\":\"0.3.1\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"bandwidth\","
          + "\"capabilities\":{\"bandwidth\":true}},{\"type\":\"tuning\","
          + "\"sysctl\":{\"net.ipv4.conf.eth0.accept_redirects\":\"0\"}}]}";
  private static final DesiredConflist CHAIN =
      new DesiredConflist(
          "shaping",
          "50-cbr0.conflist",
          Sha256.hex(DECLARED.getBytes(StandardCharsets.UTF_8)),
          DECLARED,
          null,
          "cbr0");

  private final ChainSync sync = new ChainSync();

  private List<ChainAction> plan(Manifest manifest, Map<String, String> files) {
    return plan(List.of(CHAIN), manifest, files, Optional.empty());
  }

  private List<ChainAction> plan(
      List<DesiredConflist> desired,
      Manifest manifest,
      Map<String, String> files,
      Optional<String> pluginProblem) {
    SortedMap<String, byte[]> onDisk = new TreeMap<>();
    files.forEach((k, v) -> onDisk.put(k, v.getBytes(StandardCharsets.UTF_8)));
    return sync.plan(
        desired, Map.of(), (d, v) -> pluginProblem, manifest, new LibcniNetworks.Directory(onDisk));
  }

  private static List<String> types(byte[] content) throws Exception {
    return CniJson.MAPPER.readTree(content).get("plugins").findValuesAsText("type").stream()
        .toList();
  }

  private static List<String> types(String content) throws Exception {
    return types(content.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theDeclaredEntriesAreAppendedToTheFileOfTheNamedNetworkAfterItsOwn() throws Exception {
    List<ChainAction> actions =
        plan(
            Manifest.empty(),
            Map.of("10-flannel.conflist", FLANNEL, "05-other.conflist", other("podnet")));
    assertThat(actions).singleElement().isInstanceOf(Append.class);
    Append a = (Append) actions.get(0);
    assertThat(a.fileName()).isEqualTo("10-flannel.conflist");
    assertThat(a.reapplied()).isFalse();
    assertThat(types(a.content())).containsExactly("flannel", "portmap", "bandwidth", "tuning");
    JsonNode written = CniJson.MAPPER.readTree(a.content());
    assertThat(written.get("cniVersion").asText()).isEqualTo("0.3.1");
    assertThat(written.get("plugins").get(0))
        .isEqualTo(CniJson.MAPPER.readTree(FLANNEL).get("plugins").get(0));
  }

  /**
   * libcni appends the plugins of the network's drop-in directory after the file's own, ours
   * included: what runs (and what the probe proves) has them; what is written does not.
   */
  @Test
  void whatRunsIsTheFileThenTheDropInsOfItsNetwork() throws Exception {
    SortedMap<String, byte[]> files = new TreeMap<>();
    files.put("10-flannel.conflist", FLANNEL.getBytes(StandardCharsets.UTF_8));
    SortedMap<String, byte[]> dropIns = new TreeMap<>();
    dropIns.put("90-mesh.conf", "{\"type\":\"mesh\"}".getBytes(StandardCharsets.UTF_8));
    dropIns.put("notes.txt", "not a plugin".getBytes(StandardCharsets.UTF_8));
    List<ChainAction> actions =
        sync.plan(
            List.of(CHAIN),
            Map.of(),
            (d, v) -> Optional.empty(),
            Manifest.empty(),
            new LibcniNetworks.Directory(files, Map.of("cbr0", dropIns)));
    Append a = (Append) actions.get(0);
    assertThat(types(a.content())).containsExactly("flannel", "portmap", "bandwidth", "tuning");
    assertThat(types(a.runs()))
        .containsExactly("flannel", "portmap", "bandwidth", "tuning", "mesh");
  }

  @Test
  void aFileThatHoldsTheEntriesIsLeftAsItIs() {
    Append first = (Append) plan(Manifest.empty(), Map.of("10-flannel.conflist", FLANNEL)).get(0);
    String appended = new String(first.content(), StandardCharsets.UTF_8);
    Manifest recorded =
        Manifest.empty()
            .withChain(
                "shaping",
                new AppendedChain(
                    "10-flannel.conflist", first.entries(), Sha256.hex(first.content())));
    assertThat(plan(recorded, Map.of("10-flannel.conflist", appended)))
        .singleElement()
        .isInstanceOf(InPlace.class);
  }

  @Test
  void aRewriteByItsProductIsPutRightAndSaidSo() throws Exception {
    Append first = firstAppend();
    Manifest recorded = recorded(first);
    Append again = (Append) plan(recorded, Map.of("10-flannel.conflist", FLANNEL)).get(0);
    assertThat(again.reapplied()).isTrue();
    assertThat(types(again.content())).containsExactly("flannel", "portmap", "bandwidth", "tuning");
  }

  @Test
  void oneEntryPerDeclaredPluginWhateverWasThere() throws Exception {
    String withBandwidth =
        FLANNEL.replace("}}]}", "}},{\"type\":\"bandwidth\",\"ingressRate\":1}]}");
    Append a = (Append) plan(Manifest.empty(), Map.of("10-flannel.conflist", withBandwidth)).get(0);
    assertThat(types(a.content())).containsExactly("flannel", "portmap", "bandwidth", "tuning");
  }

  @Test
  void anUnparsableFileOnTheWayOrTheTargetItselfIsNeverEditedAndNamed() {
    assertThat(
            plan(
                Manifest.empty(),
                Map.of("05-half.conflist", "{\"cniVersion\":", "10-flannel.conflist", FLANNEL)))
        .singleElement()
        .isInstanceOfSatisfying(
            Waiting.class,
            w -> {
              assertThat(w.why()).startsWith("05-half.conflist is not valid");
              assertThat(w.passing()).as("may be half-written: looked at again at once").isTrue();
            });
    assertThat(plan(Manifest.empty(), Map.of("10-flannel.conflist", FLANNEL.substring(0, 60))))
        .singleElement()
        .isInstanceOfSatisfying(
            Waiting.class, w -> assertThat(w.why()).startsWith("10-flannel.conflist is not valid"));
  }

  @Test
  void aMissingNetworkOrASinglePluginFileIsWaitedFor() {
    assertThat(plan(Manifest.empty(), Map.of("05-other.conflist", other("podnet"))))
        .singleElement()
        .isInstanceOfSatisfying(
            Waiting.class,
            w -> {
              assertThat(w.why()).contains("no configuration file of network cbr0");
              assertThat(w.passing()).isFalse();
            });
    assertThat(
            plan(
                Manifest.empty(),
                Map.of("10-flannel.conf", "{\"cniVersion\":\"0.3.1\",\"name\":\"cbr0\"}")))
        .singleElement()
        .isInstanceOfSatisfying(
            Waiting.class, w -> assertThat(w.why()).contains("single-plugin file 10-flannel.conf"));
  }

  @Test
  void pluginsThatDoNotSpeakTheTargetsVersionWait() {
    assertThat(
            plan(
                List.of(CHAIN),
                Manifest.empty(),
                Map.of("10-flannel.conflist", FLANNEL),
                Optional.of("plugin tuning does not support cniVersion 0.3.1")))
        .singleElement()
        .isInstanceOfSatisfying(
            Waiting.class,
            w ->
                assertThat(w.why())
                    .isEqualTo(
                        "plugin tuning does not support cniVersion 0.3.1, the cniVersion of"
                            + " network cbr0 in 10-flannel.conflist"));
  }

  @Test
  void whenTheDeclarationGoesOnlyItsEntriesComeOut() throws Exception {
    Append first = firstAppend();
    Manifest recorded = recorded(first);
    List<ChainAction> gone =
        plan(
            List.of(),
            recorded,
            Map.of("10-flannel.conflist", new String(first.content(), StandardCharsets.UTF_8)),
            Optional.empty());
    assertThat(gone).singleElement().isInstanceOf(Unappend.class);
    assertThat(types(((Unappend) gone.get(0)).content())).containsExactly("flannel", "portmap");
    assertThat(plan(List.of(), recorded, Map.of("10-flannel.conflist", FLANNEL), Optional.empty()))
        .singleElement()
        .isInstanceOf(Drop.class);
    assertThat(plan(List.of(), recorded, Map.of(), Optional.empty()))
        .singleElement()
        .isInstanceOf(Drop.class);
    // Half-written when the declaration goes: the record stays until the file is whole.
    assertThat(
            plan(
                List.of(),
                recorded,
                Map.of("10-flannel.conflist", "{\"cniVersion\":"),
                Optional.empty()))
        .singleElement()
        .isInstanceOf(ChainAction.Later.class);
  }

  /** The first append to flannel's file, onto an empty manifest. */
  private Append firstAppend() {
    return (Append) plan(Manifest.empty(), Map.of("10-flannel.conflist", FLANNEL)).get(0);
  }

  /** The manifest as the agent saves it with {@code append}. */
  private static Manifest recorded(Append append) {
    return Manifest.empty()
        .withChain(
            "shaping",
            new AppendedChain(
                "10-flannel.conflist", append.entries(), Sha256.hex(append.content())));
  }

  private static String other(String name) {
    return "{\"cniVersion\":\"1.0.0\",\"name\":\""
        + name
        + "\",\"plugins\":[{\"type\":\"bridge\"}]}";
  }
}
