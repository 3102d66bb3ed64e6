package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.groups.Tuple.tuple;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.config.CniConfigException;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.cni.config.NetworkConfigList;
import org.junit.jupiter.api.Test;

/**
 * A list built in memory (as the operator builds one from a CniNetwork) is held to the nesting
 * depth the parsers read back: deeper is a typed refusal, where rendering it used to end in a
 * StackOverflowError.
 */
class DeepConfigurationTest {

  @Test
  void aTreeDeeperThanParsersReadIsRefusedNotOverflowed() {
    CniConfigException refused =
        catchThrowableOfType(
            CniConfigException.class, () -> NetworkConfigList.fromJson(listNesting(20_000)));

    assertThat(refused).isNotNull();
    assertThat(refused.problems())
        .extracting(ConfigProblem::ruleId, ConfigProblem::path)
        .containsExactly(tuple("nesting-depth", "plugins[0].x[0][0]"));
    assertThat(refused.getMessage()).contains("deeper than 1000 levels");
  }

  @Test
  void whatTheParserAcceptsStillRendersAndParsesBack() {
    NetworkConfigList list = NetworkConfigList.fromJson(listNesting(1000 - 4));

    assertThat(NetworkConfigList.parse(list.render()).sha256()).isEqualTo(list.sha256());
  }

  /** A valid list whose first plugin has a member {@code x} of arrays nested {@code depth} deep. */
  private static ObjectNode listNesting(int depth) {
    ObjectNode list = JsonNodeFactory.instance.objectNode();
    list.put("cniVersion", "1.0.0").put("name", "deep");
    ObjectNode plugin = list.putArray("plugins").addObject().put("type", "bridge");
    ArrayNode a = plugin.putArray("x");
    for (int i = 1; i < depth; i++) {
      a = a.addArray();
    }
    return list;
  }
}
