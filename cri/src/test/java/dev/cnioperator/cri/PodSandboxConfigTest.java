package dev.cnioperator.cri;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PodSandboxConfigTest {
  @Test
  void emptyMetadataIsRefusedNamingTheField() {
    assertThatThrownBy(() -> PodSandboxConfig.of("web-1", " ", "uid-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("metadata.namespace");
    assertThatThrownBy(() -> PodSandboxConfig.of("web-1", "shop", null))
        .hasMessageContaining("metadata.uid");
  }
}
