package dev.cnioperator.cni.config;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cnioperator.cni.CniVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding a network's file in a directory the way libcni's LoadConfList does. */
class ConfigDirectoryTest {
  @TempDir Path dir;

  @Test
  void listsConflistsThenLegacyFilesEachInLexicalOrderAndNothingElse() throws IOException {
    for (String name :
        new String[] {
          "20-b.conflist",
          "10-z.conf",
          "05-y.json",
          "30-a.conflist",
          "99.conflist.bak",
          "README",
          "x.yaml",
          ".conflist"
        }) {
      write(name, "{}");
    }
    Files.createDirectory(dir.resolve("40-dir.conflist"));

    assertThat(ConfigDirectory.list(dir))
        .extracting(p -> p.getFileName().toString())
        .containsExactly(".conflist", "20-b.conflist", "30-a.conflist", "05-y.json", "10-z.conf");
  }

  @Test
  void aConflistWinsOverALegacyFileAndTheFirstInOrderWins() throws IOException {
    write("05-db.conf", legacy("db", "0.3.1"));
    write("20-db.conflist", conflist("db", "1.0.0", "second"));
    write("10-db.conflist", conflist("db", "1.0.0", "first"));

    NetworkConfigList list = ConfigDirectory.load(dir, "db");

    assertThat(list.plugins().get(0).raw().get("bridge").textValue()).isEqualTo("first");
    assertThat(new String(list.bytes(), UTF_8)).isEqualTo(conflist("db", "1.0.0", "first"));
  }

  @Test
  void aLegacyConfIsUpconvertedWhenNoConflistHasTheName() throws IOException {
    write("10-other.conflist", conflist("other", "1.0.0", "x"));
    write("20-db.json", legacy("db", "0.4.0"));

    NetworkConfigList list = ConfigDirectory.load(dir, "db");

    assertThat(list.cniVersion()).isEqualTo(CniVersion.V0_4_0);
    assertThat(list.plugins()).extracting(PluginConfig::type).containsExactly("bridge");
  }

  @Test
  void anUnknownNameIsNetworkNotFound() throws IOException {
    write("10-other.conflist", conflist("other", "1.0.0", "x"));

    NetworkNotFoundException e =
        catchThrowableOfType(NetworkNotFoundException.class, () -> ConfigDirectory.load(dir, "db"));

    assertThat(e.msg()).isEqualTo("no network configuration with name \"db\" in " + dir);
    assertThat(ConfigDirectory.find(dir, "db")).isEmpty();
    assertThat(ConfigDirectory.find(dir.resolve("missing"), "db")).isEmpty();
  }

  @Test
  void aFileThatIsNotJsonStopsTheSearchAndIsNamed() throws IOException {
    write("05-broken.conflist", "{\"name\": ");
    write("10-db.conflist", conflist("db", "1.0.0", "x"));

    CniConfigException e =
        catchThrowableOfType(CniConfigException.class, () -> ConfigDirectory.load(dir, "db"));

    assertThat(e.code()).isEqualTo(6);
    assertThat(e.msg()).contains(dir.resolve("05-broken.conflist").toString());
  }

  @Test
  void onlyTheMatchingFileIsFullyValidated() throws IOException {
    write("05-other.conflist", conflist("other", "0.2.0", "x"));
    write(
        "10-db.conflist",
        conflist("db", "1.0.0", "x").replace("\"bridge\"}", "\"bridge\",\"args\":{}}"));
    write("20-ok.conflist", conflist("ok", "1.0.0", "x"));

    assertThat(ConfigDirectory.load(dir, "ok").name()).isEqualTo("ok");
    CniConfigException e =
        catchThrowableOfType(CniConfigException.class, () -> ConfigDirectory.load(dir, "db"));
    assertThat(e.code()).isEqualTo(7);
    assertThat(e.msg())
        .isEqualTo("invalid network configuration in " + dir.resolve("10-db.conflist"));
    assertThat(e.problems()).extracting(ConfigProblem::path).containsExactly("plugins[0].args");
  }

  @Test
  void loadAllReadsEveryFileInSearchOrder() throws IOException {
    write("10-b.conflist", conflist("b", "1.0.0", "x"));
    write("05-a.conf", legacy("a", "0.3.1"));

    assertThat(ConfigDirectory.loadAll(dir))
        .extracting(NetworkConfigList::name)
        .containsExactly("b", "a");
  }

  private void write(String name, String content) throws IOException {
    Files.writeString(dir.resolve(name), content);
  }

  private static String conflist(String name, String version, String bridge) {
    return "{\"name\":\""
        + name
        + "\",\"cniVersion\":\""
        + version
        + "\",\"plugins\":[{\"bridge\":\""
        + bridge
        + "\",\"type\":\"bridge\"}]}";
  }

  private static String legacy(String name, String version) {
    return "{\"name\":\"" + name + "\",\"cniVersion\":\"" + version + "\",\"type\":\"bridge\"}";
  }
}
