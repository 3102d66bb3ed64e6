package dev.cnioperator.e2e.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.config.CniConfigException;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.PluginLocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cni library's last line of defence: whatever a conflist's {@code type} says, executing it
 * resolves to a file directly in a CNI_PATH directory or fails with the library's typed error. The
 * cni module's own tests cover {@code ../evil}, {@code /bin/sh}, a backslash and {@code ..}; these
 * add NUL, lookalike Unicode dots and slashes, encodings and mixtures.
 */
class PluginTypeEscapeTest {
  private static final List<String> WITH_A_SEPARATOR_OR_DOTS =
      List.of(
          "../../bin/sh",
          "/bin/sh",
          "..",
          "..\\..\\bin\\sh",
          "sh/",
          "./sh",
          " ../sh",
          "\n../sh",
          "\u2024\u2024/sh",
          "bin/../sh",
          "..\u2215sh");

  /** The bin dir and its decoy sibling both live here, so JUnit removes both. */
  @TempDir Path root;

  private Path binDir;

  @BeforeEach
  void binDir() throws IOException {
    binDir = Files.createDirectories(root.resolve("bin"));
  }

  @Test
  void typesWithASeparatorOrDotsAreInvalidConfigurationAtExecution() throws IOException {
    plantDecoys();
    PluginLocator locator = new PluginLocator(List.of(binDir));
    for (String type : WITH_A_SEPARATOR_OR_DOTS) {
      Throwable refused = catchThrowable(() -> locator.find(type));
      assertThat(refused).as("type %s", printable(type)).isInstanceOf(CniException.class);
      assertThat(((CniException) refused).code())
          .as("type %s", printable(type))
          .isEqualTo(CniErrorCode.INVALID_NETWORK_CONFIG.code());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sh\u0000", "\u0000", "bri\u0000dge", "sh\u0000/../../bin/sh"})
  void aNulInTheTypeIsATypedErrorAndNeverAPathException(String type) throws IOException {
    plantDecoys();
    Throwable refused = catchThrowable(() -> new PluginLocator(List.of(binDir)).find(type));
    assertThat(refused).as("type %s", printable(type)).isInstanceOf(CniException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"\uFF0E\uFF0E\uFF0Fsh", "%2e%2e%2fsh", "\u2024\u2024\u2215sh", "sh\u200B"})
  void lookalikesAreOnlyEverFileNamesInsideTheBinDir(String type) throws IOException {
    plantDecoys();
    PluginLocator locator = new PluginLocator(List.of(binDir));
    Throwable notThere = catchThrowable(() -> locator.find(type));
    assertThat(notThere).as("type %s", printable(type)).isInstanceOf(CniException.class);

    // Were a file of that very name in the bin dir, it is what would run, and nothing else.
    Path planted = plant(binDir.resolve(type));
    Path found = locator.find(type);
    assertThat(found).isEqualTo(planted);
    assertThat(found.toAbsolutePath().normalize().getParent()).isEqualTo(binDir.toAbsolutePath());
  }

  @Test
  void aConflistWhoseTypeCouldEscapeIsRefusedWhenParsedWithTheFieldNamed() {
    for (String type : WITH_A_SEPARATOR_OR_DOTS) {
      Throwable refused = catchThrowable(() -> parse(type));
      assertThat(refused).as("type %s", printable(type)).isInstanceOf(CniConfigException.class);
      assertThat(refused.getMessage()).as("type %s", printable(type)).contains("plugins[0].type");
    }
  }

  private static NetworkConfigList parse(String type) {
    String json =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"esc\",\"plugins\":[{\"type\":"
            + jsonString(type)
            + "}]}";
    return NetworkConfigList.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  /** An executable {@code sh} beside the bin dir, where an escaping type would land. */
  private void plantDecoys() throws IOException {
    plant(binDir.resolveSibling(binDir.getFileName() + "-outside").resolve("sh"));
  }

  private static Path plant(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "#!/bin/sh\necho escaped\n");
    file.toFile().setExecutable(true);
    return file;
  }

  private static String jsonString(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c < 0x20 || c == '"' || c == '\\') {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  private static String printable(String s) {
    return jsonString(s);
  }
}
