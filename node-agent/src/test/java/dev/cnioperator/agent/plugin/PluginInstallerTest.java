package dev.cnioperator.agent.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.cnioperator.agent.host.DiskHostFiles;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.agent.host.WriteReason;
import dev.cnioperator.agent.plugin.BinaryAction.Install;
import dev.cnioperator.cni.io.Sha256;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginInstallerTest {
  private final AtomicInteger clientsBuilt = new AtomicInteger();

  private PluginInstaller installer(Path dir) {
    DiskHostFiles files = new DiskHostFiles();
    return new PluginInstaller(
        files,
        new ManifestStore(files, dir.resolve("state/manifest.json")),
        dir.resolve("bin"),
        dir.resolve("bundled"),
        () -> {
          clientsBuilt.incrementAndGet();
          return HttpClient.newHttpClient();
        },
        Clock.systemUTC());
  }

  @Test
  void bundledInstallsBuildNoHttpClient(@TempDir Path dir) throws Exception {
    byte[] bridge = "bridge binary".getBytes(StandardCharsets.UTF_8);
    Files.createDirectories(dir.resolve("bundled"));
    Files.write(dir.resolve("bundled/bridge"), bridge);

    PluginInstaller.Applied applied =
        installer(dir)
            .apply(
                List.of(new Install("bridge", null, Sha256.hex(bridge), WriteReason.CREATE)),
                Manifest.empty());

    assertThat(applied.outcomes()).singleElement().extracting(PluginOutcome::error).isNull();
    assertThat(Files.readAllBytes(dir.resolve("bin/bridge"))).isEqualTo(bridge);
    assertThat(clientsBuilt).hasValue(0);
  }

  @Test
  void downloadsShareOneHttpClientBuiltForTheFirst(@TempDir Path dir) throws Exception {
    byte[] tuning = "tuning binary".getBytes(StandardCharsets.UTF_8);
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(200, tuning.length);
          try (var body = exchange.getResponseBody()) {
            body.write(tuning);
          }
        });
    server.start();
    try {
      String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
      String sha = Sha256.hex(tuning);
      PluginInstaller installer = installer(dir);

      PluginInstaller.Applied applied =
          installer.apply(
              List.of(
                  new Install("tuning", base + "tuning", sha, WriteReason.CREATE),
                  new Install("vlan", base + "vlan", sha, WriteReason.CREATE)),
              Manifest.empty());

      assertThat(applied.outcomes()).extracting(PluginOutcome::error).containsOnlyNulls();
      assertThat(Files.readAllBytes(dir.resolve("bin/vlan"))).isEqualTo(tuning);
      assertThat(clientsBuilt).hasValue(1);
    } finally {
      server.stop(0);
    }
  }
}
