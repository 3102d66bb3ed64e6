package dev.cnioperator.cri;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.cnioperator.cri.v1.NamespaceMode;
import dev.cnioperator.cri.v1.PodIP;
import dev.cnioperator.cri.v1.PodSandboxMetadata;
import dev.cnioperator.cri.v1.PodSandboxNetworkStatus;
import dev.cnioperator.cri.v1.PodSandboxState;
import dev.cnioperator.cri.v1.RunPodSandboxRequest;
import dev.cnioperator.cri.v1.RuntimeStatus;
import dev.cnioperator.cri.v1.StatusResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CriMessagesTest {
  private static final PodSandboxMetadata METADATA =
      PodSandboxMetadata.newBuilder()
          .setName("web-1")
          .setNamespace("shop")
          .setUid("0f0e0d0c-0000-4000-8000-000000000001")
          .setAttempt(2)
          .build();

  @Test
  void listedSandboxKeepsItsKubernetesMetadataLabelsAndCreationTime() {
    var wire =
        dev.cnioperator.cri.v1.PodSandbox.newBuilder()
            .setId("a1b2")
            .setMetadata(METADATA)
            .setState(PodSandboxState.SANDBOX_READY)
            .setCreatedAt(1_763_700_000_123_456_789L)
            .putLabels("io.kubernetes.pod.name", "web-1")
            .putAnnotations("note", "x")
            .build();

    PodSandbox sandbox = CriMessages.sandbox(wire);

    assertThat(sandbox)
        .isEqualTo(
            new PodSandbox(
                "a1b2",
                "web-1",
                "shop",
                "0f0e0d0c-0000-4000-8000-000000000001",
                2,
                PodSandbox.State.READY,
                Instant.ofEpochSecond(1_763_700_000L, 123_456_789L),
                Map.of("io.kubernetes.pod.name", "web-1"),
                Map.of("note", "x")));
    assertThat(sandbox.ready()).isTrue();
  }

  @Test
  void notReadyAndStatesNewerThanThisClientAreNotReady() {
    var notReady =
        dev.cnioperator.cri.v1.PodSandbox.newBuilder()
            .setState(PodSandboxState.SANDBOX_NOTREADY)
            .build();
    var unknownState = dev.cnioperator.cri.v1.PodSandbox.newBuilder().setStateValue(7).build();

    assertThat(CriMessages.sandbox(notReady).state()).isEqualTo(PodSandbox.State.NOTREADY);
    assertThat(CriMessages.sandbox(unknownState).ready()).isFalse();
  }

  /**
   * The bytes a CRI v1 runtime sends for a PodSandbox, written field number by field number as
   * k8s.io/cri-api's api.proto numbers them (including runtime_handler, field 7, which this client
   * declares, and a field 99 it does not know): the client must read them.
   */
  @Test
  void decodesAPodSandboxWrittenWithTheUpstreamFieldNumbers() throws IOException {
    ByteArrayOutputStream metadata = new ByteArrayOutputStream();
    CodedOutputStream m = CodedOutputStream.newInstance(metadata);
    m.writeString(1, "web-1");
    m.writeString(2, "uid-1");
    m.writeString(3, "shop");
    m.writeUInt32(4, 3);
    m.flush();
    ByteArrayOutputStream label = new ByteArrayOutputStream();
    CodedOutputStream l = CodedOutputStream.newInstance(label);
    l.writeString(1, "app");
    l.writeString(2, "web");
    l.flush();
    ByteArrayOutputStream sandbox = new ByteArrayOutputStream();
    CodedOutputStream s = CodedOutputStream.newInstance(sandbox);
    s.writeString(1, "a1b2");
    s.writeBytes(2, ByteString.copyFrom(metadata.toByteArray()));
    s.writeEnum(3, 1);
    s.writeInt64(4, 5_000_000_000L);
    s.writeBytes(5, ByteString.copyFrom(label.toByteArray()));
    s.writeString(7, "runc");
    s.writeString(99, "from a newer runtime");
    s.flush();

    PodSandbox decoded =
        CriMessages.sandbox(dev.cnioperator.cri.v1.PodSandbox.parseFrom(sandbox.toByteArray()));

    assertThat(decoded.id()).isEqualTo("a1b2");
    assertThat(decoded.name()).isEqualTo("web-1");
    assertThat(decoded.uid()).isEqualTo("uid-1");
    assertThat(decoded.namespace()).isEqualTo("shop");
    assertThat(decoded.attempt()).isEqualTo(3);
    assertThat(decoded.state()).isEqualTo(PodSandbox.State.NOTREADY);
    assertThat(decoded.createdAt()).isEqualTo(Instant.ofEpochSecond(5));
    assertThat(decoded.labels()).containsExactly(Map.entry("app", "web"));
  }

  @Test
  void statusReportsNetworkReadyWithItsReasonAndMessage() {
    var wire =
        StatusResponse.newBuilder()
            .setStatus(
                RuntimeStatus.newBuilder()
                    .addConditions(condition("RuntimeReady", true, "", ""))
                    .addConditions(
                        condition(
                            "NetworkReady",
                            false,
                            "NetworkPluginNotReady",
                            "cni plugin not initialized")))
            .build();

    dev.cnioperator.cri.RuntimeStatus status = CriMessages.status(wire);

    assertThat(status.runtimeReady().status()).isTrue();
    assertThat(status.networkReady())
        .isEqualTo(
            new RuntimeCondition(
                "NetworkReady", false, "NetworkPluginNotReady", "cni plugin not initialized"));
  }

  @Test
  void aConditionTheRuntimeDoesNotReportIsNotTrue() {
    dev.cnioperator.cri.RuntimeStatus status =
        CriMessages.status(StatusResponse.getDefaultInstance());

    assertThat(status.networkReady().status()).isFalse();
    assertThat(status.networkReady().reason()).isEqualTo("NotReported");
  }

  @Test
  void sandboxStatusListsThePrimaryAddressFirst() {
    var wire =
        dev.cnioperator.cri.v1.PodSandboxStatus.newBuilder()
            .setId("a1b2")
            .setMetadata(METADATA)
            .setNetwork(
                PodSandboxNetworkStatus.newBuilder()
                    .setIp("10.200.100.5")
                    .addAdditionalIps(PodIP.newBuilder().setIp("fd00:200::5")))
            .build();

    PodSandboxStatus status = CriMessages.sandboxStatus(wire);

    assertThat(status.ips()).containsExactly("10.200.100.5", "fd00:200::5");
    assertThat(status.primaryIp()).contains("10.200.100.5");
    assertThat(status.sandbox().name()).isEqualTo("web-1");
  }

  @Test
  void sandboxWithoutNetworkHasNoAddress() {
    var wire = dev.cnioperator.cri.v1.PodSandboxStatus.newBuilder().setId("a1b2").build();

    assertThat(CriMessages.sandboxStatus(wire).primaryIp()).isEmpty();
  }

  @Test
  void runRequestAsksForAPodNetworkNamespaceWithTheKubernetesMetadata() {
    RunPodSandboxRequest request =
        CriSandboxes.runRequest(
            PodSandboxConfig.of("db-0", "data", "uid-9").withLabels(Map.of("app", "db")), "");

    var config = request.getConfig();
    assertThat(config.getMetadata().getName()).isEqualTo("db-0");
    assertThat(config.getMetadata().getNamespace()).isEqualTo("data");
    assertThat(config.getMetadata().getUid()).isEqualTo("uid-9");
    assertThat(config.getLabelsMap()).containsEntry("app", "db");
    assertThat(config.getLinux().getSecurityContext().getNamespaceOptions().getNetwork())
        .isEqualTo(NamespaceMode.POD);
  }

  private static dev.cnioperator.cri.v1.RuntimeCondition condition(
      String type, boolean status, String reason, String message) {
    return dev.cnioperator.cri.v1.RuntimeCondition.newBuilder()
        .setType(type)
        .setStatus(status)
        .setReason(reason)
        .setMessage(message)
        .build();
  }
}
