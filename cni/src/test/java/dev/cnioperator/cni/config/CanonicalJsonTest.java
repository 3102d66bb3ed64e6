package dev.cnioperator.cni.config;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.io.Sha256;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CanonicalJsonTest {

  @Test
  void rendersSortedKeysTwoSpaceIndentAndATrailingNewline() {
    String rendered =
        render("{\"b\":[1,{\"y\":null,\"x\":true}],\"a\":\"s\",\"e\":{},\"d\":[],\"c\":false}");

    assertThat(rendered)
        .isEqualTo(
            """
            {
              "a": "s",
              "b": [
                1,
                {
                  "x": true,
                  "y": null
                }
              ],
              "c": false,
              "d": [],
              "e": {}
            }
            """);
  }

  @Test
  void theSameValueGivesTheSameBytesWhateverItsKeyOrderAndWhitespace() {
    String a =
        "{\"name\":\"db\",\"plugins\":[{\"type\":\"bridge\",\"ipam\":{\"type\":\"h\",\"x\":1}}]}";
    String b =
        "{\n\t\"plugins\" : [ {\"ipam\":{\"x\":1.0,\"type\":\"h\"},   \"type\":\"bridge\"} ] ,"
            + "\r\n \"name\" : \"db\" }";

    assertThat(CanonicalJson.render(ConfigJson.read(a.getBytes(UTF_8), "a")))
        .isEqualTo(CanonicalJson.render(ConfigJson.read(b.getBytes(UTF_8), "b")));
  }

  @Test
  void renderingIsAFixedPoint() {
    byte[] once = CanonicalJson.render(ConfigJson.read(SpecExamples.section1Example(), "spec"));
    byte[] twice = CanonicalJson.render(ConfigJson.read(once, "rendered"));

    assertThat(twice).isEqualTo(once);
  }

  @Test
  void sha256OfTheSpecExampleIsStable() {
    NetworkConfigList list = NetworkConfigList.parse(SpecExamples.section1Example());

    // Pinned: a change here changes every rendered conflist's sha256 on every node.
    assertThat(list.sha256())
        .isEqualTo("860d63b2ed286ccbb12315438de004ddf1f6d4f725f2825f172b8b2672bbfa23");
    assertThat(Sha256.hex(new byte[0]))
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "1, 1",
    "-7, -7",
    "1.0, 1",
    "1e2, 100",
    "1E+2, 100",
    "1.50, 1.5",
    "-0, 0",
    "-0.0, 0",
    "0.000001, 0.000001",
    "1e-7, 0.0000001",
    "12345678901234567890123, 12345678901234567890123",
    "1e100, 1E+100",
    "2.5e-70, 2.5E-70",
  })
  void writesNumbersByValue(String input, String expected) {
    assertThat(render("[" + input + "]")).isEqualTo("[\n  " + expected + "\n]\n");
  }

  @Test
  void writesDoublesAndFloatsFromTreesBuiltInMemoryTheSameWay() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("d", 0.1);
    node.put("f", 0.1f);
    node.put("i", 1500.0);
    node.put("b", new BigDecimal("1500.00"));

    assertThat(new String(CanonicalJson.render(node), UTF_8))
        .isEqualTo("{\n  \"b\": 1500,\n  \"d\": 0.1,\n  \"f\": 0.1,\n  \"i\": 1500\n}\n");
  }

  @Test
  void escapesOnlyWhatJsonNeedsAndKeepsUnicodeAsUtf8() {
    String rendered = render("[\"q\\\" b\\\\ nl\\n tab\\t bell\\u0007 é 😀 \\ud800 /\"]");

    assertThat(rendered)
        .isEqualTo("[\n  \"q\\\" b\\\\ nl\\n tab\\t bell\\u0007 é 😀 \\ud800 /\"\n]\n");
  }

  @Test
  void sortsKeysByCodePointLikeGo() {
    String rendered = render("{\"😀\":1,\"\\uffff\":2,\"é\":3,\"b\":4,\"a\":5,\"B\":6}");

    assertThat(rendered.replaceAll("\\s", ""))
        .isEqualTo("{\"B\":6,\"a\":5,\"b\":4,\"é\":3,\"\uffff\":2,\"😀\":1}");
  }

  private static String render(String json) {
    JsonNode node = ConfigJson.read(json.getBytes(UTF_8), "test");
    return new String(CanonicalJson.render(node), UTF_8);
  }
}
