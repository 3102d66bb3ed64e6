package dev.cnioperator.cni.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class AttachmentTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "''              | eth0             | CNI_CONTAINERID",
        "-abc            | eth0             | CNI_CONTAINERID",
        "a/b             | eth0             | CNI_CONTAINERID",
        "a b             | eth0             | CNI_CONTAINERID",
        "abc             | ''               | CNI_IFNAME",
        "abc             | 0123456789abcdef | CNI_IFNAME",
        "abc             | .                | CNI_IFNAME",
        "abc             | ..               | CNI_IFNAME",
        "abc             | a/b              | CNI_IFNAME",
        "abc             | a:b              | CNI_IFNAME",
        "abc             | 'a b'            | CNI_IFNAME",
        "abc             | 'a\tb'           | CNI_IFNAME",
        "abc             | ééééééééé        | CNI_IFNAME",
      })
  void invalidParametersAreRefusedNamingTheVariable(
      String containerId, String ifName, String variable) {
    CniException e =
        catchThrowableOfType(
            CniException.class, () -> Attachment.of(containerId, "/run/netns/x", ifName));
    assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_ENVIRONMENT.code());
    assertThat(e.msg()).startsWith(variable + ":");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"a", "0", "cnitool-0123abcd", "A_b.c-d", "k8s_POD_web-0_default_1234-abcd"})
  void validContainerIdsAreAccepted(String containerId) {
    assertThatCode(() -> Attachment.of(containerId, "", "eth0")).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(strings = {"eth0", "net1", "0123456789abcde", "veth-a.b_c"})
  void validInterfaceNamesAreAccepted(String ifName) {
    assertThatCode(() -> Attachment.of("c", "", ifName)).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "A=1;B=2                  | A=1;B=2",
        "IgnoreUnknown=1;K8S_POD_NAMESPACE=default | IgnoreUnknown=1;K8S_POD_NAMESPACE=default",
      })
  void cniArgsRoundTrip(String text, String formatted) {
    assertThat(CniArg.format(CniArg.parse(text))).isEqualTo(formatted);
  }

  @ParameterizedTest
  @ValueSource(strings = {"A", "A=", "=1", "A=1;", "A=1=2", ";A=1"})
  void malformedCniArgsAreRefusedAsCnitoolDoes(String text) {
    CniException e = catchThrowableOfType(CniException.class, () -> CniArg.parse(text));
    assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_ENVIRONMENT.code());
    assertThat(e.msg()).contains("CNI_ARGS");
  }

  @org.junit.jupiter.api.Test
  void emptyCniArgsAreNoPairs() {
    assertThat(CniArg.parse("")).isEmpty();
    assertThat(CniArg.parse(null)).isEmpty();
    assertThat(Attachment.of("c", "", "eth0").withCniArgs(List.of()).cniArgsValue()).isEmpty();
  }
}
