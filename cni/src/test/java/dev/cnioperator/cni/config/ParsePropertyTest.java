package dev.cnioperator.cni.config;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.cnioperator.cni.CniVersion;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Property: whatever bytes come in, parsing either yields a valid list whose canonical rendering is
 * a fixed point, or throws {@link CniConfigException} with at least one problem. Nothing else (no
 * NullPointerException, ClassCastException, ...) ever escapes. Inputs are random JSON built from
 * the configuration vocabulary, and random byte edits of the spec example; seeds are fixed so a
 * failure reproduces.
 */
class ParsePropertyTest {
  private static final int CASES = 3000;

  private static final List<String> KEYS =
      List.of(
          "name",
          "cniVersion",
          "cniVersions",
          "plugins",
          "type",
          "ipam",
          "dns",
          "capabilities",
          "nameservers",
          "search",
          "options",
          "domain",
          "disableCheck",
          "disableGC",
          "runtimeConfig",
          "args",
          "prevResult",
          "cni.dev/x",
          "mac",
          "portMappings",
          "subnet",
          "",
          "é😀",
          "a.b");

  private static final List<String> STRINGS =
      List.of(
          "db",
          "bridge",
          "host-local",
          "1.1.0",
          "1.0.0",
          "0.4.0",
          "0.3.1",
          "0.2.0",
          "2.0.0",
          "10.1.0.1",
          "fd00::1",
          "::",
          "[::1]",
          "x/y",
          "..",
          "",
          "true",
          "FALSE",
          "\u0000",
          "\ud800",
          "a b",
          "-x",
          "1.1",
          "01.0.0");

  @Test
  void randomJsonOnlyEverGivesAValidListOrACniConfigException() {
    Random random = new Random(20261121L);
    for (int i = 0; i < CASES; i++) {
      String json = randomJson(random, 0, i % 2 == 0);
      check(json.getBytes(UTF_8));
    }
    System.out.println("random JSON: " + valid + " valid lists of " + 2 * CASES + " parses");
    assertThat(valid).isGreaterThan(CASES / 100);
  }

  @Test
  void byteEditsOfTheSpecExampleOnlyEverGiveAValidListOrACniConfigException() {
    byte[] example = SpecExamples.section1Example();
    Random random = new Random(7L);
    for (int i = 0; i < CASES; i++) {
      byte[] edited = Arrays.copyOf(example, example.length);
      int edits = 1 + random.nextInt(3);
      for (int e = 0; e < edits; e++) {
        edited[random.nextInt(edited.length)] = (byte) random.nextInt(256);
      }
      check(edited);
    }
    System.out.println("spec example edits: " + valid + " valid lists of " + 2 * CASES + " parses");
    assertThat(valid).isGreaterThan(CASES / 100);
  }

  /** How many inputs parsed as valid lists: the property must cover both outcomes. */
  private int valid;

  private void check(byte[] input) {
    checkOne(input, b -> NetworkConfigList.parse(b, "input"));
    checkOne(input, b -> NetworkConfigList.parseLegacyConf(b, "input"));
  }

  private void checkOne(byte[] input, Function<byte[], NetworkConfigList> parser) {
    NetworkConfigList list;
    try {
      list = parser.apply(input);
    } catch (CniConfigException e) {
      assertThat(e.problems()).isNotEmpty();
      assertThat(e.code()).isIn(6, 7);
      return;
    } catch (RuntimeException | Error e) {
      throw new AssertionError("unexpected " + e + " for input: " + new String(input, UTF_8), e);
    }
    try {
      NetworkConfigList again = NetworkConfigList.parse(list.render(), "rendered");
      assertThat(again.render()).isEqualTo(list.render());
      for (PluginConfig plugin : list.plugins()) {
        plugin.requestBytes(list.name(), CniVersion.LATEST, Map.of(), null);
      }
      VersionSelection.select(list);
      valid++;
    } catch (RuntimeException e) {
      fail("a valid list broke after parsing: " + new String(input, UTF_8), e);
    }
  }

  /** Random JSON; with {@code shaped} the top levels look like a configuration list. */
  private static String randomJson(Random random, int depth, boolean shaped) {
    if (shaped && depth == 0) {
      // Mostly valid list-level keys, so that plugin objects decide validity often enough.
      StringBuilder list = new StringBuilder("{\"name\":").append(often(random, "\"db\""));
      list.append(",\"cniVersion\":").append(often(random, "\"1.1.0\""));
      if (random.nextInt(4) == 0) {
        list.append(",\"cniVersions\":").append(randomJson(random, 2, false));
      }
      list.append(",\"plugins\":[");
      int plugins = random.nextInt(4);
      for (int i = 0; i < plugins; i++) {
        String members = randomObject(random, 1).substring(1);
        list.append(i > 0 ? "," : "").append("{\"type\":").append(often(random, "\"bridge\""));
        list.append(members.equals("}") ? "" : ",").append(members);
      }
      return list.append("]}").toString();
    }
    int kind = depth > 4 ? 2 + random.nextInt(4) : random.nextInt(6);
    return switch (kind) {
      case 0 -> randomObject(random, depth);
      case 1 -> {
        StringBuilder array = new StringBuilder("[");
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          array.append(i > 0 ? "," : "").append(randomJson(random, depth + 1, false));
        }
        yield array.append(']').toString();
      }
      case 2 -> randomString(random);
      case 3 -> randomNumber(random);
      case 4 -> random.nextBoolean() ? "true" : "false";
      default -> "null";
    };
  }

  private static String randomObject(Random random, int depth) {
    StringBuilder object = new StringBuilder("{");
    int n = random.nextInt(6);
    for (int i = 0; i < n; i++) {
      object.append(i > 0 ? "," : "");
      object.append(JsonText.quoted(KEYS.get(random.nextInt(KEYS.size()))));
      object.append(':').append(randomJson(random, depth + 1, false));
    }
    return object.append('}').toString();
  }

  /** {@code usual} three times in four, else a random string. */
  private static String often(Random random, String usual) {
    return random.nextInt(4) == 0 ? randomString(random) : usual;
  }

  private static String randomString(Random random) {
    return JsonText.quoted(STRINGS.get(random.nextInt(STRINGS.size())));
  }

  private static String randomNumber(Random random) {
    return switch (random.nextInt(7)) {
      case 0 -> Integer.toString(random.nextInt());
      case 1 -> Double.toString(random.nextDouble() * 1e6);
      case 2 -> "1e" + (random.nextInt(2000) - 1000);
      case 3 ->
          (random.nextBoolean() ? "-1E+" : "1e")
              + ((long) Integer.MAX_VALUE + random.nextInt(3) - 1);
      case 4 -> "123456789012345678901234567890";
      case 5 -> "-0.0";
      default -> "1.50";
    };
  }
}
