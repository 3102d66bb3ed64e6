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
    assertThat(AttachmentChain.Judge.revision(V1, b(V1)).of(b(V1)))
        .isInstanceOf(AttachmentChain.Current.class);
    assertThat(AttachmentChain.Judge.revision(V1, b(withIstio(V1))).of(b(withIstio(V1))).why())
        .isNull();
  }

  @Test
  void anAttachmentOfAnOlderRevisionIsNamedSo() {
    assertThat(AttachmentChain.Judge.revision(V2, b(V2)).of(b(V1)).why())
        .isEqualTo("added with an older revision of the network");
    assertThat(AttachmentChain.Judge.revision(V2, b(withIstio(V2))).of(b(withIstio(V1))))
        .isInstanceOf(AttachmentChain.OlderRevision.class);
  }

  @Test
  void aPodCreatedBeforeAMeshChainedInLacksItsPlugin() {
    assertThat(AttachmentChain.Judge.revision(V1, b(withIstio(V1))).of(b(V1)).why())
        .isEqualTo("added without istio-cni, which the file now chains");
  }

  @Test
  void aPodAddedWithAPluginTheFileNoLongerChainsRunsAnotherChain() {
    assertThat(AttachmentChain.Judge.revision(V1, b(V1)).of(b(withIstio(V1))))
        .isInstanceOf(AttachmentChain.OtherPlugins.class);
  }

  @Test
  void whenTheFileCannotBeReadOnlyTheRevisionCounts() {
    assertThat(AttachmentChain.Judge.revision(V1, null).of(b(V1)))
        .isInstanceOf(AttachmentChain.Current.class);
    assertThat(AttachmentChain.Judge.revision(V1, b("{half")).of(b(V1)))
        .isInstanceOf(AttachmentChain.Current.class);
  }

  @Test
  void aPodOfAForeignNetworkAddedBeforeTheDeclaredEntriesWereAppendedLacksThem() {
    String declared =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"tuning\","
            + "\"mtu\":1400},{\"type\":\"bandwidth\",\"ingressRate\":8}]}";
    String foreign =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"ptp\"}]}";
    String chained =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"ptp\"},"
            + "{\"mtu\":1400,\"type\":\"tuning\"},{\"type\":\"bandwidth\",\"ingressRate\":8}]}";
    AttachmentChain.Judge judge = AttachmentChain.Judge.declared(declared);
    assertThat(judge.of(b(chained))).isInstanceOf(AttachmentChain.Current.class);
    assertThat(judge.of(b(foreign)).why())
        .isEqualTo("added without tuning, bandwidth, which the file now chains");
    assertThat(judge.of(b(chained.replace("1400", "1500"))).why())
        .isEqualTo("added without tuning, which the file now chains");
  }
}
