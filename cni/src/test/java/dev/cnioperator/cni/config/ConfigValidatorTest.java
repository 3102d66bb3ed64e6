package dev.cnioperator.cni.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** One case per validation rule: the exact path and rule, and what the message tells a person. */
class ConfigValidatorTest {

  /** A valid list; each case replaces one piece of it. JSON with ' for ". */
  private static final String PLUGIN = "{'type':'bridge','ipam':{'type':'host-local'}}";

  static Stream<Arguments> invalidLists() {
    return Stream.of(
        // name (SPEC-1.1.0.md Section 1, "name")
        bad(list("'cniVersion':'1.0.0'", PLUGIN), "name", "missing-name", "name is missing"),
        bad(
            list("'name':'-db','cniVersion':'1.0.0'", PLUGIN),
            "name",
            "name-pattern",
            "network name \"-db\" must start with a letter or digit"),
        bad(list("'name':'db net','cniVersion':'1.0.0'", PLUGIN), "name", "name-pattern", "db net"),
        bad(
            list("'name':5,'cniVersion':'1.0.0'", PLUGIN),
            "name",
            "wrong-type",
            "name must be a string, not the number 5"),
        // versions
        bad(list("'name':'db'", PLUGIN), "cniVersion", "missing-version", "cniVersion is missing"),
        bad(
            list("'name':'db','cniVersion':'9.9.9'", PLUGIN),
            "cniVersion",
            "unknown-version",
            "CNI version \"9.9.9\" is not known; use one of [0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0]"),
        bad(
            list("'name':'db','cniVersion':'0.2.0'", PLUGIN),
            "cniVersion",
            "unsupported-version",
            "0.2.0 has no plugin chaining"),
        bad(
            list("'name':'db','cniVersion':'1.1.0','cniVersions':[]", PLUGIN),
            "cniVersions",
            "cni-versions",
            "cniVersions is empty"),
        bad(
            list("'name':'db','cniVersion':'1.1.0','cniVersions':['1.1.0','banana']", PLUGIN),
            "cniVersions[1]",
            "unknown-version",
            "\"banana\" is not known"),
        bad(
            list("'name':'db','cniVersion':'1.1.0','cniVersions':['0.1.0','1.1.0']", PLUGIN),
            "cniVersions[0]",
            "unsupported-version",
            "0.1.0 has no plugin chaining"),
        bad(
            list("'name':'db','cniVersion':'1.1.0','cniVersions':'1.1.0'", PLUGIN),
            "cniVersions",
            "wrong-type",
            "cniVersions must be an array of version strings"),
        // version-dependent flags
        bad(
            list("'name':'db','cniVersion':'0.3.1','disableCheck':true", PLUGIN),
            "disableCheck",
            "check-version",
            "disableCheck needs cniVersion 0.4.0 or later (CHECK came with 0.4.0)"),
        bad(
            list("'name':'db','cniVersion':'1.0.0','disableGC':true", PLUGIN),
            "disableGC",
            "gc-version",
            "disableGC needs cniVersion 1.1.0 or later (GC came with 1.1.0)"),
        bad(
            list(
                "'name':'db','cniVersion':'1.0.0','cniVersions':['0.4.0','1.0.0'],'disableGC':true",
                PLUGIN),
            "disableGC",
            "gc-version",
            "a 1.0.0 network never runs GC"),
        bad(
            list("'name':'db','cniVersion':'1.0.0','disableCheck':'yes'", PLUGIN),
            "disableCheck",
            "wrong-type",
            "disableCheck must be true or false, not the string \"yes\""),
        // plugins
        bad(
            "{'name':'db','cniVersion':'1.0.0'}",
            "plugins",
            "empty-plugins",
            "needs at least one plugin"),
        bad(
            "{'name':'db','cniVersion':'1.0.0','plugins':[]}",
            "plugins",
            "empty-plugins",
            "needs at least one plugin"),
        bad(
            "{'name':'db','cniVersion':'1.0.0','plugins':{'type':'bridge'}}",
            "plugins",
            "wrong-type",
            "plugins must be an array of plugin objects, not an object"),
        bad(
            plugins("'bridge'"),
            "plugins[0]",
            "wrong-type",
            "must be a plugin configuration object"),
        // type and ipam.type
        bad(plugins("{'bridge':'cni0'}"), "plugins[0].type", "missing-type", "names the plugin"),
        bad(
            plugins(PLUGIN, "{'type':'../../bin/sh'}"),
            "plugins[1].type",
            "unsafe-type",
            "plugins[1].type \"../../bin/sh\" is not a safe file name: it contains '/'"),
        bad(plugins("{'type':'a\\\\b'}"), "plugins[0].type", "unsafe-type", "contains '\\'"),
        bad(plugins("{'type':''}"), "plugins[0].type", "unsafe-type", "is empty"),
        bad(plugins("{'type':'..'}"), "plugins[0].type", "unsafe-type", "relative path"),
        bad(plugins("{'type':'a\\u0000b'}"), "plugins[0].type", "unsafe-type", "control character"),
        bad(plugins("{'type':7}"), "plugins[0].type", "wrong-type", "a plugin binary name"),
        bad(
            plugins("{'type':'bridge','ipam':{'subnet':'10.200.0.0/24'}}"),
            "plugins[0].ipam.type",
            "missing-ipam-type",
            "names the IPAM plugin binary"),
        bad(
            plugins("{'type':'bridge','ipam':{'type':'/usr/lib/cni/host-local'}}"),
            "plugins[0].ipam.type",
            "unsafe-type",
            "contains '/'"),
        bad(
            plugins("{'type':'bridge','ipam':'host-local'}"),
            "plugins[0].ipam",
            "wrong-type",
            "plugins[0].ipam must be an object"),
        // reserved keys (SPEC-1.1.0.md Section 1, "Reserved keys")
        bad(
            plugins("{'type':'tuning','runtimeConfig':{'mac':'00:11:22:33:44:55'}}"),
            "plugins[0].runtimeConfig",
            "reserved-key",
            "\"runtimeConfig\" is reserved: the runtime generates it"),
        bad(plugins("{'type':'tuning','args':{}}"), "plugins[0].args", "reserved-key", "reserved"),
        bad(
            plugins("{'type':'tuning','cni.dev/valid-attachments':[]}"),
            "plugins[0][\"cni.dev/valid-attachments\"]",
            "reserved-key",
            "\"cni.dev/valid-attachments\" is reserved"),
        bad(
            plugins("{'type':'tuning','prevResult':{}}"),
            "plugins[0].prevResult",
            "reserved-key",
            "reserved"),
        bad(
            list("'name':'db','cniVersion':'1.0.0','args':{}", PLUGIN),
            "args",
            "reserved-key",
            "\"args\" is reserved"),
        // capabilities
        bad(
            plugins("{'type':'portmap','capabilities':{'portMappings':'yes'}}"),
            "plugins[0].capabilities.portMappings",
            "capabilities-not-boolean",
            "capability \"portMappings\" must be true or false, not \"yes\""),
        bad(
            plugins("{'type':'portmap','capabilities':['portMappings']}"),
            "plugins[0].capabilities",
            "wrong-type",
            "an object of capability names to true or false"),
        // dns (SPEC-1.1.0.md Section 1, "dns")
        bad(
            plugins("{'type':'bridge','dns':'10.1.0.1'}"),
            "plugins[0].dns",
            "dns-shape",
            "dns must be an object"),
        bad(
            plugins("{'type':'bridge','dns':{'nameservers':'10.1.0.1'}}"),
            "plugins[0].dns.nameservers",
            "dns-shape",
            "must be a list of strings"),
        bad(
            plugins("{'type':'bridge','dns':{'nameservers':['10.1.0.1','dns.example']}}"),
            "plugins[0].dns.nameservers[1]",
            "dns-shape",
            "nameserver \"dns.example\" is not an IPv4 or IPv6 address"),
        bad(
            plugins("{'type':'bridge','dns':{'nameservers':['10.1.0.300']}}"),
            "plugins[0].dns.nameservers[0]",
            "dns-shape",
            "not an IPv4 or IPv6 address"),
        bad(
            plugins("{'type':'bridge','dns':{'search':['svc.local',5]}}"),
            "plugins[0].dns.search[1]",
            "dns-shape",
            "must be a string, not 5"),
        bad(
            plugins("{'type':'bridge','dns':{'options':'ndots:5'}}"),
            "plugins[0].dns.options",
            "dns-shape",
            "must be a list of strings"),
        bad(
            plugins("{'type':'bridge','dns':{'domain':['a']}}"),
            "plugins[0].dns.domain",
            "dns-shape",
            "dns.domain must be a string"),
        // a plugin's own cniVersion and name
        bad(
            plugins("{'type':'bridge','cniVersion':'0.4.0'}"),
            "plugins[0].cniVersion",
            "version-mismatch",
            "plugins[0].cniVersion is \"0.4.0\" but the list's cniVersion is \"1.0.0\""),
        bad(
            plugins("{'type':'bridge','name':'other'}"),
            "plugins[0].name",
            "name-mismatch",
            "but the list's name is \"db\""));
  }

  @ParameterizedTest(name = "{1} {2}")
  @MethodSource("invalidLists")
  void reportsTheBrokenRuleAtItsPath(String json, String path, String rule, String message) {
    List<ConfigProblem> problems = ConfigValidator.validate(object(json));

    assertThat(problems).hasSize(1);
    ConfigProblem problem = problems.get(0);
    assertThat(problem.path()).isEqualTo(path);
    assertThat(problem.ruleId()).isEqualTo(rule);
    assertThat(problem.message()).contains(message);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{'name':'db','cniVersion':'0.3.0','plugins':[{'type':'bridge'}]}",
        "{'name':'db.net_1-a','cniVersion':'0.4.0','disableCheck':true,"
            + "'plugins':[{'type':'bridge','cniVersion':'0.4.0','name':'db.net_1-a'}]}",
        "{'name':'db','cniVersion':'1.1.0','cniVersions':['1.0.0','1.1.0','1.2.0'],"
            + "'disableGC':'TRUE','disableCheck':false,'plugins':[{'type':'bridge'}]}",
        "{'name':'db','cniVersion':'0.3.1','disableCheck':false,'disableGC':false,"
            + "'plugins':[{'type':'bridge'}]}",
        // A runtime that reads cniVersion alone (libcni before 1.2) gets 1.0.0, a newer one 1.1.0;
        // disableGC speaks to the one that selects 1.1.0.
        "{'name':'db','cniVersion':'1.0.0','cniVersions':['1.0.0','1.1.0'],'disableGC':true,"
            + "'plugins':[{'type':'bridge'}]}",
        "{'name':'db','cniVersion':'0.4.0','cniVersions':['0.4.0','1.0.0','1.2.0'],"
            + "'plugins':[{'type':'bridge'}]}",
        "{'name':'db','cniVersion':'1.0.0','loadOnlyInlinedPlugins':true,'anything':[1,2],"
            + "'plugins':[{'type':'my-plugin.v2','capabilities':{'mac':false,'ips':true},"
            + "'dns':{'nameservers':['10.1.0.1','fd00::1','::ffff:10.0.0.1'],'domain':'x',"
            + "'search':['a'],'options':['ndots:5'],'extra':1},'ipam':{'type':'static'}}]}"
      })
  void acceptsValidLists(String json) {
    assertThat(ConfigValidator.validate(object(json))).isEmpty();
  }

  @Test
  void acceptsTheSpecSection1Example() throws IOException {
    ObjectNode example = (ObjectNode) new ObjectMapper().readTree(SpecExamples.section1Example());
    assertThat(ConfigValidator.validate(example)).isEmpty();
  }

  @Test
  void reportsEveryProblemNotJustTheFirst() {
    String json =
        "{'name':'-x','cniVersion':'2.0','runtimeConfig':{},"
            + "'plugins':[{'type':'a/b','capabilities':{'mac':1}},{'ipam':{}}]}";

    assertThat(ConfigValidator.validate(object(json)))
        .extracting(ConfigProblem::path, ConfigProblem::ruleId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("name", "name-pattern"),
            org.assertj.core.groups.Tuple.tuple("cniVersion", "unknown-version"),
            org.assertj.core.groups.Tuple.tuple("runtimeConfig", "reserved-key"),
            org.assertj.core.groups.Tuple.tuple("plugins[0].type", "unsafe-type"),
            org.assertj.core.groups.Tuple.tuple(
                "plugins[0].capabilities.mac", "capabilities-not-boolean"),
            org.assertj.core.groups.Tuple.tuple("plugins[1].type", "missing-type"),
            org.assertj.core.groups.Tuple.tuple("plugins[1].ipam.type", "missing-ipam-type"));
  }

  private static Arguments bad(String json, String path, String rule, String message) {
    return Arguments.of(json, path, rule, message);
  }

  private static String list(String head, String... plugins) {
    return "{" + head + ",'plugins':[" + String.join(",", plugins) + "]}";
  }

  private static String plugins(String... plugins) {
    return list("'name':'db','cniVersion':'1.0.0'", plugins);
  }

  static ObjectNode object(String singleQuoted) {
    try {
      return (ObjectNode) new ObjectMapper().readTree(singleQuoted.replace('\'', '"'));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
