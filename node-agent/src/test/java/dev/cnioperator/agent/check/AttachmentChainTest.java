package dev.cnioperator.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AttachmentChainTest {
  private static final String V1 =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"podnet\",\"plugins\":[{\"type\":\"bridge\",\"bridge\":\"cni0\"}]}";
  private static final String V2 = V1.replace("cni0", "cni1");

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String withIstio(String revision) {
    return revision.replace("}]}", "},{\"type\":\"istio-cni\",\"log_level\":\"info\"}]}");
  }

  @Test
  void anAttachmentAddedWithTheFileAsItIsRunsTheCurrentChain() {
    assertThat(AttachmentChain.of(b(V1), V1, b(V1))).isInstanceOf(AttachmentChain.Current.class);
    assertThat(AttachmentChain.of(b(withIstio(V1)), V1, b(withIstio(V1))).why()).isNull();
  }

  @Test
  void anAttachmentOfAnOlderRevisionIsNamedSo() {
    assertThat(AttachmentChain.of(b(V1), V2, b(V2)).why())
        .isEqualTo("added with an older revision of the network");
    assertThat(AttachmentChain.of(b(withIstio(V1)), V2, b(withIstio(V2))))
        .isInstanceOf(AttachmentChain.OlderRevision.class);
  }

  @Test
  void aPodCreatedBeforeAMeshChainedInLacksItsPlugin() {
    assertThat(AttachmentChain.of(b(V1), V1, b(withIstio(V1))).why())
        .isEqualTo("added without istio-cni, which the file now chains");
  }

  @Test
  void aPodAddedWithAPluginTheFileNoLongerChainsRunsAnotherChain() {
    assertThat(AttachmentChain.of(b(withIstio(V1)), V1, b(V1)))
        .isInstanceOf(AttachmentChain.OtherPlugins.class);
  }

  @Test
  void whenTheFileCannotBeReadOnlyTheRevisionCounts() {
    assertThat(AttachmentChain.of(b(V1), V1, null)).isInstanceOf(AttachmentChain.Current.class);
    assertThat(AttachmentChain.of(b(V1), V1, b("{half")))
        .isInstanceOf(AttachmentChain.Current.class);
  }
}
