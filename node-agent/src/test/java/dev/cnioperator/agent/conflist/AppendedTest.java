package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.io.CniJson;
import dev.cnioperator.cni.io.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AppendedTest {
  static final String OWN =
      """
      {
        "cniVersion": "1.0.0",
        "name": "podnet",
        "plugins": [
          {"type": "bridge", "bridge": "cni0", "mtu": 1500.0,
           "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.22.0.0/24"}]]}},
          {"type": "portmap", "capabilities": {"portMappings": true}}
        ]
      }
      """;

  /** What Istio's install-cni writes: Go's encoder, keys sorted, 1500.0 as 1500, its entry last. */
  static final String ISTIO_CHAINED =
      """
      {"cniVersion":"1.0.0","name":"podnet","plugins":[\
      {"bridge":"cni0","ipam":{"ranges":[[{"subnet":"10.22.0.0/24"}]],"type":"host-local"},\
      "mtu":1500,"type":"bridge"},\
      {"capabilities":{"portMappings":true},"type":"portmap"},\
      {"kubernetes":{"kubeconfig":"/etc/cni/net.d/ZZZ-istio-cni-kubeconfig"},"type":"istio-cni"}]}
      """;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aPluginAppendedByAnInstallerThatReMarshalsTheFileIsFound() {
    Optional<Appended> a = Appended.after(OWN, bytes(ISTIO_CHAINED));
    assertThat(a).isPresent();
    assertThat(a.get().types()).containsExactly("istio-cni");
  }

  @Test
  void theFileAsTheAgentWroteItHasNothingAppended() {
    assertThat(Appended.after(OWN, bytes(OWN))).contains(Appended.NONE);
  }

  @Test
  void anOwnEntryEditedIsNotAnAppend() {
    String edited = ISTIO_CHAINED.replace("\"mtu\":1500", "\"mtu\":9000");
    assertThat(Appended.after(OWN, bytes(edited))).isEmpty();
  }

  @Test
  void ownEntriesReorderedOrOneRemovedAreNotAnAppend() {
    String reordered =
        """
        {"cniVersion":"1.0.0","name":"podnet","plugins":[\
        {"capabilities":{"portMappings":true},"type":"portmap"},\
        {"bridge":"cni0","ipam":{"ranges":[[{"subnet":"10.22.0.0/24"}]],"type":"host-local"},\
        "mtu":1500,"type":"bridge"},{"type":"istio-cni"}]}
        """;
    String removed =
        """
        {"cniVersion":"1.0.0","name":"podnet","plugins":[\
        {"bridge":"cni0","ipam":{"ranges":[[{"subnet":"10.22.0.0/24"}]],"type":"host-local"},\
        "mtu":1500,"type":"bridge"},{"type":"istio-cni"}]}
        """;
    assertThat(Appended.after(OWN, bytes(reordered))).isEmpty();
    assertThat(Appended.after(OWN, bytes(removed))).isEmpty();
  }

  @Test
  void aPluginPutBeforeTheOwnChainIsNotAnAppend() {
    String prepended =
        ISTIO_CHAINED.replace("\"plugins\":[", "\"plugins\":[{\"type\":\"tuning\"},");
    assertThat(Appended.after(OWN, bytes(prepended))).isEmpty();
  }

  @Test
  void aTopLevelFieldChangedOrAddedIsNotAnAppend() {
    assertThat(
            Appended.after(
                OWN, bytes(ISTIO_CHAINED.replace("\"name\":\"podnet\"", "\"name\":\"x\""))))
        .isEmpty();
    assertThat(
            Appended.after(
                OWN,
                bytes(
                    ISTIO_CHAINED.replace(
                        "{\"cniVersion\"", "{\"disableCheck\":true,\"cniVersion\""))))
        .isEmpty();
  }

  @Test
  void aHalfWrittenOrNonJsonFileIsNotAnAppend() {
    assertThat(Appended.after(OWN, bytes(ISTIO_CHAINED.substring(0, 80)))).isEmpty();
    assertThat(Appended.after(OWN, bytes("not json"))).isEmpty();
    assertThat(Appended.after(OWN, bytes("[1]"))).isEmpty();
  }

  @Test
  void carriedOntoANewRevisionTheEntriesComeAfterItsOwnPlugins() throws IOException {
    Appended istio = Appended.after(OWN, bytes(ISTIO_CHAINED)).orElseThrow();
    String next = OWN.replace("10.22.0.0/24", "10.23.0.0/24");
    DesiredConflist d =
        new DesiredConflist("podnet", "10-podnet.conflist", Sha256.hex(bytes(next)), next);

    byte[] written = istio.onto(d);

    JsonNode plugins = CniJson.MAPPER.readTree(written).get("plugins");
    assertThat(plugins).hasSize(3);
    assertThat(plugins.get(0).path("ipam").toString()).contains("10.23.0.0/24");
    assertThat(plugins.get(2).path("type").asText()).isEqualTo("istio-cni");
    // Read back, the written file is the new revision plus the same entries: kept, not drift.
    assertThat(Appended.after(next, written)).contains(istio);
  }

  @Test
  void nothingCarriedWritesTheRevisionByteForByte() {
    DesiredConflist d =
        new DesiredConflist("podnet", "10-podnet.conflist", Sha256.hex(bytes(OWN)), OWN);
    assertThat(Appended.NONE.onto(d)).isEqualTo(d.bytes());
  }
}
