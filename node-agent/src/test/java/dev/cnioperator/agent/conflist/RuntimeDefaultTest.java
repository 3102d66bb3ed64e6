package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.RuntimeDefaultFile;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RuntimeDefaultTest {
  private static final String POD_NETWORK =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"podnet\",\"plugins\":[{\"type\":\"bridge\","
          + "\"bridge\":\"cni0\",\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.1.0.0/24\"}}]}";

  /** The conf dir's files by name. */
  private final Map<String, String> dir = new HashMap<>(Map.of("10-podnet.conflist", POD_NETWORK));

  private RuntimeDefaultFile describe(String fileName, String content) {
    dir.put(fileName, content);
    return RuntimeDefault.describe(
        fileName,
        Optional.of(content.getBytes(StandardCharsets.UTF_8)),
        Map.of("podnet", "10-podnet.conflist"),
        name -> Optional.ofNullable(dir.get(name)).map(s -> s.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The shape of Multus's thick daemon's 00-multus.conf: the shim as a single plugin, the primary
   * network inline as its first delegate, with Multus's own cniVersion forced onto it.
   */
  private static String thickMultus(String delegate) {
    return "{\"cniVersion\":\"0.3.1\",\"name\":\"multus-cni-network\",\"type\":\"multus-shim\","
        + "\"logLevel\":\"verbose\",\"capabilities\":{\"portMappings\":true},"
        + "\"delegates\":["
        + delegate
        + "]}";
  }

  @Test
  void ownFileIsNamedAsTheAgents() {
    RuntimeDefaultFile f = describe("10-podnet.conflist", POD_NETWORK);
    assertThat(f.getNetworkName()).isEqualTo("podnet");
    assertThat(f.getCopyOf()).isNull();
    assertThat(f.getMessage()).isEqualTo("the file of network podnet, written by this agent");
  }

  @Test
  void anotherProductsFileIsSaidToBeTheirs() {
    RuntimeDefaultFile f =
        describe(
            "05-cilium.conflist", "{\"name\":\"cilium\",\"plugins\":[{\"type\":\"cilium-cni\"}]}");
    assertThat(f.getNetworkName()).isEqualTo("cilium");
    assertThat(f.getCopyCurrent()).isNull();
    assertThat(f.getMessage()).contains("another product's file").contains("cilium");
  }

  @Test
  void multusCopyOfThePodNetworkIsCurrentWhateverItsCniVersion() {
    String copy = POD_NETWORK.replace("\"1.0.0\"", "\"0.3.1\"");
    RuntimeDefaultFile f = describe("00-multus.conf", thickMultus(copy));
    assertThat(f.getNetworkName()).isEqualTo("multus-cni-network");
    assertThat(f.getCopyOf()).isEqualTo("podnet");
    assertThat(f.getCopyCurrent()).isTrue();
    assertThat(f.getMessage()).contains("10-podnet.conflist as it is now");
  }

  @Test
  void multusCopyOfAnOlderPodNetworkIsStaleNamingBothFiles() {
    String multus = thickMultus(POD_NETWORK);
    dir.put("10-podnet.conflist", POD_NETWORK.replace("cni0", "cni1"));
    RuntimeDefaultFile f = describe("00-multus.conf", multus);
    assertThat(f.getCopyOf()).isEqualTo("podnet");
    assertThat(f.getCopyCurrent()).isFalse();
    assertThat(f.getMessage())
        .contains("differs from 10-podnet.conflist now")
        .contains("until Multus writes 00-multus.conf again");
  }

  @Test
  void thinMultusConflistIsReadThroughItsFirstPlugin() {
    String thin =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"multus-cni-network\",\"plugins\":[{\"type\":\"multus\","
            + "\"delegates\":["
            + POD_NETWORK
            + "]}]}";
    RuntimeDefaultFile f = describe("00-multus.conflist", thin);
    assertThat(f.getCopyOf()).isEqualTo("podnet");
    assertThat(f.getCopyCurrent()).isTrue();
  }

  @Test
  void multusThatNamesItsPrimaryNetworkHoldsNoCopy() {
    RuntimeDefaultFile f =
        describe(
            "00-multus.conf",
            "{\"name\":\"multus-cni-network\",\"type\":\"multus\",\"clusterNetwork\":\"podnet\"}");
    assertThat(f.getCopyOf()).isNull();
    assertThat(f.getCopyCurrent()).isNull();
    assertThat(f.getMessage()).contains("reads its primary network (podnet) at each pod's ADD");
  }

  @Test
  void multusCopyOfANetworkTheAgentDoesNotManageIsNotJudged() {
    RuntimeDefaultFile f =
        describe(
            "00-multus.conf",
            thickMultus("{\"name\":\"cbr0\",\"plugins\":[{\"type\":\"flannel\"}]}"));
    assertThat(f.getCopyOf()).isNull();
    assertThat(f.getCopyCurrent()).isNull();
    assertThat(f.getMessage()).contains("network cbr0").contains("does not manage");
  }

  @Test
  void aFileThatIsNotJsonIsSaidToLoadNothing() {
    RuntimeDefaultFile f = describe("00-broken.conf", "{\"name\":");
    assertThat(f.getNetworkName()).isNull();
    assertThat(f.getMessage()).contains("not a JSON object");
  }
}
