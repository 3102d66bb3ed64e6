package dev.cnioperator.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class CriSandboxNetnsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void networkNamespaceIsTakenFromTheSandboxsOciSpec() throws Exception {
    String info =
        """
        {"pid": 42, "runtimeSpec": {"linux": {"namespaces": [
          {"type": "pid"}, {"type": "ipc"},
          {"type": "network", "path": "/var/run/netns/cni-1234"}]}}}
        """;
    assertThat(CriSandboxNetns.networkNamespace(JSON.readTree(info)))
        .contains("/var/run/netns/cni-1234");
  }

  @Test
  void hostNetworkSandboxesHaveNone() throws Exception {
    String info = "{\"runtimeSpec\": {\"linux\": {\"namespaces\": [{\"type\": \"pid\"}]}}}";
    assertThat(CriSandboxNetns.networkNamespace(JSON.readTree(info))).isEmpty();
    assertThat(CriSandboxNetns.networkNamespace(JSON.readTree("{}"))).isEmpty();
  }
}
