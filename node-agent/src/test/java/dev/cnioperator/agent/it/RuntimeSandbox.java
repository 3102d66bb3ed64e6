package dev.cnioperator.agent.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.agent.kube.CriSandboxNetns;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.containerd.ContainerdFixture;
import java.nio.file.Path;

/**
 * A pod sandbox as containerd shows it in {@code crictl inspectp}: its id, the address the plugins
 * gave it and its own network namespace.
 */
record RuntimeSandbox(String id, String ip, Path netns) {
  private static final ObjectMapper JSON = new ObjectMapper();

  static RuntimeSandbox inspect(ContainerdFixture containerd, String id) throws Exception {
    JsonNode inspect =
        JSON.readTree(containerd.crictl("inspectp", id).orThrow("crictl inspectp " + id).stdout());
    String ip = inspect.path("status").path("network").path("ip").asText();
    String netns =
        CriSandboxNetns.networkNamespace(inspect.path("info"))
            .orElseThrow(() -> new AssertionError("crictl inspectp shows no netns: " + inspect));
    return new RuntimeSandbox(id, ip, Path.of(netns));
  }

  /** {@code ip -o -4 addr show} of eth0 inside the sandbox's netns; fails when eth0 is gone. */
  String eth0() {
    return Commands.run(
            "nsenter", "--net=" + netns, "ip", "-o", "-4", "addr", "show", "dev", "eth0")
        .orThrow("eth0 in sandbox " + id)
        .stdout();
  }

  /** Deletes eth0 inside the sandbox's netns, behind the runtime's back. */
  void breakInterface() {
    Commands.run("nsenter", "--net=" + netns, "ip", "link", "del", "eth0")
        .orThrow("ip link del eth0 in sandbox " + id);
  }
}
