package dev.cnioperator.cni.config;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniVersion;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NetworkConfigListTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void readsTheTypedFieldsOfTheSpecExample() {
    NetworkConfigList list = NetworkConfigList.parse(SpecExamples.section1Example());

    assertThat(list.name()).isEqualTo("dbnet");
    assertThat(list.cniVersion()).isEqualTo(CniVersion.V1_1_0);
    assertThat(list.cniVersions())
        .containsExactly(
            CniVersion.V0_3_1, CniVersion.V0_4_0, CniVersion.V1_0_0, CniVersion.V1_1_0);
    assertThat(list.disableCheck()).isFalse();
    assertThat(list.disableGC()).isFalse();
    assertThat(list.plugins())
        .extracting(PluginConfig::type)
        .containsExactly("bridge", "tuning", "portmap");
    assertThat(list.plugins().get(0).ipamType()).contains("host-local");
    assertThat(list.plugins().get(1).ipamType()).isEmpty();
    assertThat(list.plugins().get(1).capabilities()).isEqualTo(Map.of("mac", true));
  }

  @Test
  void keepsUnknownFieldsUntouched() throws IOException {
    byte[] json =
        ("{\"name\":\"db\",\"cniVersion\":\"1.0.0\",\"x-list\":{\"deep\":[1,2.5,null]},"
                + "\"plugins\":[{\"type\":\"bridge\",\"bridge\":\"cni0\",\"hairpinMode\":true,"
                + "\"ipam\":{\"type\":\"host-local\",\"ranges\":[[{\"subnet\":\"10.200.0.0/24\"}]]},"
                + "\"vendor\":{\"n\":12345678901234567890}}]}")
            .getBytes(UTF_8);

    NetworkConfigList list = NetworkConfigList.parse(json);

    // Compared as the parser reads them: decimals stay exact (BigDecimal), not doubles.
    assertThat(list.raw()).isEqualTo(ConfigJson.read(json, "expected"));
    assertThat(list.plugins().get(0).raw())
        .isEqualTo(ConfigJson.read(json, "expected").get("plugins").get(0));
    assertThat(NetworkConfigList.parse(list.render())).isEqualTo(list);
    assertThat(new String(list.render(), UTF_8))
        .contains("\"n\": 12345678901234567890")
        .contains("\"hairpinMode\": true");
    assertThat(list.bytes()).isEqualTo(json);
  }

  @Test
  void pluginBinariesAreEveryTypeAndIpamTypeSortedOnceEach() {
    NetworkConfigList list =
        NetworkConfigList.parse(
            ("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":["
                    + "{\"type\":\"macvlan\",\"ipam\":{\"type\":\"host-local\"}},"
                    + "{\"type\":\"bandwidth\"},{\"type\":\"tuning\",\"ipam\":{\"type\":\"host-local\"}},"
                    + "{\"type\":\"bandwidth\"}]}")
                .getBytes(UTF_8));

    assertThat(list.pluginBinaries())
        .containsExactly("bandwidth", "host-local", "macvlan", "tuning");
  }

  @Test
  void isImmutable() {
    ObjectNode source =
        ConfigValidatorTest.object(
            "{'name':'db','cniVersion':'1.0.0','plugins':[{'type':'bridge'}]}");
    NetworkConfigList list = NetworkConfigList.fromJson(source);
    String sha = list.sha256();

    source.put("name", "changed");
    list.raw().put("name", "changed");
    list.plugins().get(0).raw().put("type", "changed");

    assertThat(list.name()).isEqualTo("db");
    assertThat(list.plugins().get(0).type()).isEqualTo("bridge");
    assertThat(list.sha256()).isEqualTo(sha);
  }

  @Test
  void readsFlagsAsBooleansOrLibcniStyleStrings() {
    NetworkConfigList list =
        NetworkConfigList.fromJson(
            ConfigValidatorTest.object(
                "{'name':'db','cniVersion':'1.1.0','disableCheck':'True','disableGC':true,"
                    + "'plugins':[{'type':'bridge'}]}"));

    assertThat(list.disableCheck()).isTrue();
    assertThat(list.disableGC()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "{",
        "{\"name\":\"db\"} trailing",
        "{\"name\": \"db\", // a comment\n \"cniVersion\": \"1.0.0\"}",
        "{\"name\":\"db\",}",
        "{'name':'db'}",
        "[1,2,]",
        "{\"name\":\"db\",\"x\":1e2147483648}"
      })
  void malformedJsonIsADecodingFailureNamingTheSource(String text) {
    CniConfigException e =
        catchThrowableOfType(
            CniConfigException.class,
            () -> NetworkConfigList.parse(text.getBytes(UTF_8), "/etc/cni/net.d/10-db.conflist"));

    assertThat(e.code()).isEqualTo(CniErrorCode.DECODING_FAILURE.code());
    assertThat(e.msg()).contains("/etc/cni/net.d/10-db.conflist");
    assertThat(e.problems())
        .singleElement()
        .extracting(ConfigProblem::ruleId)
        .isEqualTo("malformed-json");
  }

  @ParameterizedTest
  @ValueSource(strings = {"1e999999999", "-1E+2147483647", "1e-999999999", "-0.0e-5"})
  void numbersAtTheEdgeOfBigDecimalRenderInExponentForm(String number) {
    byte[] json =
        ("{\"name\":\"db\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"b\",\"x\":"
                + number
                + "}]}")
            .getBytes(UTF_8);

    NetworkConfigList list = NetworkConfigList.parse(json);

    assertThat(NetworkConfigList.parse(list.render())).isEqualTo(list);
    assertThat(list.render().length).isLessThan(200);
  }

  @Test
  void aJsonValueThatIsNotAnObjectIsAnInvalidConfig() {
    CniConfigException e =
        catchThrowableOfType(
            CniConfigException.class,
            () -> NetworkConfigList.parse("[{\"type\":\"bridge\"}]".getBytes(UTF_8)));

    assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_NETWORK_CONFIG.code());
    assertThat(e.problems())
        .containsExactly(
            new ConfigProblem(
                "",
                ConflistRule.WRONG_TYPE,
                "a network configuration must be a JSON object, not ARRAY"));
  }

  @Test
  void anInvalidListThrowsWithEveryProblemAndNamesTheSource() {
    byte[] json =
        "{\"name\":\"db\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"../sh\",\"args\":{}}]}"
            .getBytes(UTF_8);

    CniConfigException e =
        catchThrowableOfType(
            CniConfigException.class, () -> NetworkConfigList.parse(json, "net.d/10-db.conflist"));

    assertThat(e.code()).isEqualTo(7);
    assertThat(e.msg()).isEqualTo("invalid network configuration in net.d/10-db.conflist");
    assertThat(e.problems())
        .extracting(ConfigProblem::path)
        .containsExactly("plugins[0].args", "plugins[0].type");
    assertThat(e.details()).contains("plugins[0].type", "unsafe-type", "\"../sh\"");
    assertThat(e.getMessage()).startsWith("CNI error 7: invalid network configuration in net.d");
  }

  @Test
  void aLegacyConfIsReadAsAListOfThatOnePluginLikeLibcni() throws IOException {
    byte[] conf =
        ("{\"cniVersion\":\"0.4.0\",\"name\":\"legacy\",\"type\":\"bridge\",\"bridge\":\"cni1\","
                + "\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.200.1.0/24\"}}")
            .getBytes(UTF_8);

    NetworkConfigList list = NetworkConfigList.parseLegacyConf(conf);

    assertThat(list.name()).isEqualTo("legacy");
    assertThat(list.cniVersion()).isEqualTo(CniVersion.V0_4_0);
    assertThat(list.plugins()).hasSize(1);
    assertThat(list.plugins().get(0).raw()).isEqualTo(JSON.readTree(conf));
    assertThat(list.raw())
        .isEqualTo(
            JSON.readTree(
                "{\"cniVersion\":\"0.4.0\",\"name\":\"legacy\",\"plugins\":["
                    + new String(conf, UTF_8)
                    + "]}"));
    assertThat(list.plugins().get(0).requestConfig("legacy", CniVersion.V0_4_0, Map.of(), null))
        .isEqualTo(JSON.readTree(conf));
  }

  @Test
  void problemsOfALegacyConfArePathsIntoTheConfItself() {
    byte[] conf =
        "{\"cniVersion\":\"0.2.0\",\"name\":\"legacy\",\"type\":\"bridge\",\"ipam\":{},\"cni.dev/x\":1}"
            .getBytes(UTF_8);

    CniConfigException e =
        catchThrowableOfType(
            CniConfigException.class, () -> NetworkConfigList.parseLegacyConf(conf, "10-l.conf"));

    assertThat(e.problems())
        .extracting(ConfigProblem::path, ConfigProblem::ruleId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("cniVersion", "unsupported-version"),
            org.assertj.core.groups.Tuple.tuple("[\"cni.dev/x\"]", "reserved-key"),
            org.assertj.core.groups.Tuple.tuple("ipam.type", "missing-ipam-type"));
  }

  @Test
  void equalListsHaveEqualCanonicalBytesWhateverTheirSpelling() {
    NetworkConfigList a =
        NetworkConfigList.parse(
            "{\"name\":\"db\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"bridge\",\"mtu\":1500}]}"
                .getBytes(UTF_8));
    NetworkConfigList b =
        NetworkConfigList.parse(
            "{ \"plugins\" : [ { \"mtu\" : 1500.0, \"type\" : \"bridge\" } ],\n\"cniVersion\":\"1.0.0\",\"name\":\"db\" }"
                .getBytes(UTF_8));

    assertThat(a.render()).isEqualTo(b.render());
    assertThat(a.sha256()).isEqualTo(b.sha256()).hasSize(64);
    assertThat(a).isEqualTo(b);
    assertThat(List.of(a.bytes())).isNotEqualTo(List.of(b.bytes()));
  }

  @Test
  void theExecutableLevelAcceptsWhatLibcniRunsAndKeepsStaticRuntimeKeys() {
    byte[] json =
        ("{\"name\":\"db\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"portmap\","
                + "\"cniVersion\":\"0.4.0\",\"runtimeConfig\":{\"portMappings\":[]},"
                + "\"dns\":{\"nameservers\":[\"dns.local\"]},\"ipam\":{\"subnet\":\"10.200.2.0/24\"}}]}")
            .getBytes(UTF_8);

    CniConfigException full =
        catchThrowableOfType(CniConfigException.class, () -> NetworkConfigList.parse(json));
    NetworkConfigList list = NetworkConfigList.parse(json, "cache", ValidationLevel.EXECUTABLE);

    assertThat(full.problems())
        .extracting(ConfigProblem::ruleId)
        .containsExactlyInAnyOrder(
            "reserved-key", "missing-ipam-type", "dns-shape", "version-mismatch");
    assertThat(list.plugins().get(0).ipamType()).isEmpty();
    assertThat(list.plugins().get(0).requestConfig("db", CniVersion.V1_0_0, Map.of(), null))
        .isEqualTo(
            ConfigValidatorTest.object(
                "{'cniVersion':'1.0.0','name':'db','type':'portmap',"
                    + "'dns':{'nameservers':['dns.local']},'ipam':{'subnet':'10.200.2.0/24'},"
                    + "'runtimeConfig':{'portMappings':[]}}"));
  }

  @Test
  void theExecutableLevelStillRefusesWhatCannotBeExecutedSafely() {
    byte[] json =
        "{\"name\":\"../db\",\"cniVersion\":\"0.2.0\",\"plugins\":[{\"type\":\"../x\"},{}]}"
            .getBytes(UTF_8);

    CniConfigException e =
        catchThrowableOfType(
            CniConfigException.class,
            () -> NetworkConfigList.parse(json, "cache", ValidationLevel.EXECUTABLE));

    assertThat(e.problems())
        .extracting(ConfigProblem::ruleId)
        .containsExactly("name-pattern", "unsupported-version", "unsafe-type", "missing-type");
  }
}
