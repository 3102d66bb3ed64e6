package dev.cnioperator.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cri.RuntimeVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RuntimeCniSupportTest {
  private static NetworkConfigList list(String version) {
    String json =
        "{\"cniVersion\":\"" + version + "\",\"name\":\"n\",\"plugins\":[{\"type\":\"bridge\"}]}";
    return NetworkConfigList.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  private static RuntimeVersion runtime(String name, String version) {
    return new RuntimeVersion("0.1.0", name, version, "v1");
  }

  @Test
  void containerdBeforeTwoCannotAddA110Network() {
    assertThat(RuntimeCniSupport.refuses(runtime("containerd", "1.6.20~ds1"), list("1.1.0")))
        .hasValueSatisfying(
            m ->
                assertThat(m)
                    .startsWith(
                        "the node's runtime, containerd 1.6.20~ds1 (libcni 1.1), cannot ADD")
                    .contains("set cniVersion 1.0.0, with cniVersions [1.0.0, 1.1.0]")
                    .contains("or upgrade containerd to 2.x"));
    assertThat(RuntimeCniSupport.refuses(runtime("containerd", "v1.7.35"), list("1.1.0")))
        .isPresent();
  }

  @Test
  void olderNetworksAndNewerOrOtherRuntimesAreNotRefused() {
    assertThat(RuntimeCniSupport.refuses(runtime("containerd", "v1.7.35"), list("1.0.0")))
        .isEmpty();
    assertThat(RuntimeCniSupport.refuses(runtime("containerd", "v2.4.2"), list("1.1.0"))).isEmpty();
    assertThat(RuntimeCniSupport.refuses(runtime("cri-o", "1.28.1"), list("1.1.0"))).isEmpty();
  }
}
