package dev.cnioperator.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** containerd 1.6's verbose CRI Status info, in the shape {@code crictl info} shows it. */
class LoadedCniConfigTest {
  private static final String POD_NETWORK =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"pods\",\"plugins\":[{\"type\":\"bridge\"}]}";

  @Test
  void thePodNetworkIsTheFirstAfterContainerdsOwnLoopbackAndItsShaIsTheSourceText() {
    String cniconfig =
        """
        {"PluginDirs":["/opt/cni/bin"],"PluginConfDir":"/etc/cni/net.d","PluginMaxConfNum":1,
         "Prefix":"eth","Networks":[
          {"Config":{"Name":"cni-loopback","CNIVersion":"0.3.1","Plugins":[],
                     "Source":"{\\"cniVersion\\":\\"0.3.1\\",\\"name\\":\\"cni-loopback\\"}"},
           "IFName":"lo"},
          {"Config":{"Name":"pods","CNIVersion":"1.0.0","Plugins":[],"Source":%s},
           "IFName":"eth0"}]}
        """
            .formatted("\"" + POD_NETWORK.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");

    LoadedCniConfig loaded =
        LoadedCniConfig.from(Map.of("cniconfig", cniconfig, "lastCNILoadStatus", "\"OK\""))
            .orElseThrow();

    assertThat(loaded.network()).isEqualTo("pods");
    assertThat(loaded.sha256()).isEqualTo(Sha256.hex(POD_NETWORK.getBytes(StandardCharsets.UTF_8)));
    assertThat(loaded.loadError()).isNull();
    assertThat(loaded.confDir()).isEqualTo("/etc/cni/net.d");
  }

  @Test
  void aFailedReloadNamesTheFileAndOnlyLoopbackIsLoaded() {
    String cniconfig =
        "{\"Networks\":[{\"Config\":{\"Name\":\"cni-loopback\",\"Source\":\"{}\"},\"IFName\":\"lo\"}]}";
    String status =
        "\"cni config load failed: failed to load CNI config list file"
            + " /etc/cni/net.d/05-bad.conflist: error parsing configuration list\"";

    LoadedCniConfig loaded =
        LoadedCniConfig.from(Map.of("cniconfig", cniconfig, "lastCNILoadStatus", status))
            .orElseThrow();

    assertThat(loaded.network()).isNull();
    assertThat(loaded.sha256()).isNull();
    assertThat(loaded.loadError()).contains("/etc/cni/net.d/05-bad.conflist");
    assertThat(loaded.confDir()).isNull();
  }

  @Test
  void aRuntimeWithoutContainerdsKeysSaysNothingAboutWhatItLoaded() {
    assertThat(LoadedCniConfig.from(Map.of("config", "{}"))).isEmpty();
  }
}
