package dev.cnioperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 52: a spec read as the informers read it (fabric8's Serialization) names every field this
 * build does not know, at any depth, so the operator and the agent can refuse it.
 */
class KnownFieldsTest {

  /** A CniNetwork from a newer release: fields at the top of spec, nested, and in a list. */
  private static final String NEWER_NETWORK =
      """
      apiVersion: cnioperator.dev/v1alpha1
      kind: CniNetwork
      metadata: {name: dbnet}
      spec:
        zeta: 1
        plugins:
        - {type: bridge, brandNewPluginKey: true}
        rollout:
          maxNodes: "25%"
          surge: 2
          probe: {enabled: true, timeoutSeconds: 5}
        attachment:
          multus: {namespaces: [shop], weight: 3}
        futureField: x
      """;

  /** A CniNode whose entries carry {@code newThing}, {@code check}'s and a plugin's fields. */
  private static CniNode node(String newThing, String checkField, String pluginField) {
    return Serialization.unmarshal(
        """
        {"apiVersion": "cnioperator.dev/v1alpha1", "kind": "CniNode", "metadata": {"name": "n1"},
         "spec": {
          "networks": [
            {"name": "a", "fileName": "50-a.conflist", "content": "{}", "sha256": "aa"%s},
            {"name": "b", "fileName": "60-b.conflist", "unavailable": "waiting",
             "check": {"enabled": true%s}}],
          "plugins": [{"name": "bridge", "source": "bundled"},
                      {"name": "macvlan", "source": "bundled"%s}]}}
        """
            .formatted(newThing, checkField, pluginField),
        CniNode.class);
  }

  private static CniNode newerNode() {
    return node(
        ", \"newThing\": {\"deep\": [1, 2]}", ", \"jitterSeconds\": 3", ", \"arch\": \"arm64\"");
  }

  private static CniNetwork network(String yaml) {
    return Serialization.unmarshal(yaml, CniNetwork.class);
  }

  @Test
  void aNetworkNamesItsUnknownFieldsAtEveryDepthButNotThoseOfItsFreeFormPlugins() {
    CniNetwork newer = network(NEWER_NETWORK);

    assertThat(KnownFields.unknownFields(newer.getSpec(), "spec"))
        .containsExactly(
            "spec.futureField",
            "spec.zeta",
            "spec.rollout.surge",
            "spec.rollout.probe.timeoutSeconds",
            "spec.attachment.multus.weight");
    assertThat(newer.getSpec().getPlugins().get(0).has("brandNewPluginKey")).isTrue();
  }

  /**
   * The operator's reconciler gets a copy of the cached network, made by JOSDK through JSON
   * (fabric8's KubernetesSerialization.clone): the copy must name the same fields.
   */
  @Test
  void aCopyMadeThroughJsonKeepsTheUnknownFields() {
    CniNetwork newer = network(NEWER_NETWORK);
    CniNode node = newerNode();

    CniNetwork copy = new KubernetesSerialization().clone(newer);

    assertThat(KnownFields.unknownFields(copy.getSpec(), "spec"))
        .isEqualTo(KnownFields.unknownFields(newer.getSpec(), "spec"));
    assertThat(copy.getSpec()).isEqualTo(newer.getSpec());
    assertThat(new KubernetesSerialization().clone(node).getSpec()).isEqualTo(node.getSpec());
  }

  @Test
  void theOrderDoesNotDependOnTheOrderOfTheDocument() {
    String reordered =
        """
        apiVersion: cnioperator.dev/v1alpha1
        kind: CniNetwork
        metadata: {name: dbnet}
        spec:
          futureField: x
          attachment:
            multus: {weight: 3, namespaces: [shop]}
          rollout:
            probe: {timeoutSeconds: 5, enabled: true}
            surge: 2
            maxNodes: "25%"
          plugins:
          - {type: bridge}
          zeta: 1
        """;

    assertThat(KnownFields.unknownFields(network(reordered).getSpec(), "spec"))
        .isEqualTo(KnownFields.unknownFields(network(NEWER_NETWORK).getSpec(), "spec"));
  }

  @Test
  void aNodeNamesItsUnknownFieldsByListIndex() {
    assertThat(KnownFields.unknownFields(newerNode().getSpec(), "spec"))
        .containsExactly(
            "spec.networks[0].newThing",
            "spec.networks[1].check.jitterSeconds",
            "spec.plugins[1].arch");
  }

  @Test
  void aPluginNamesItsUnknownFields() {
    CniPlugin newer =
        Serialization.unmarshal(
            "{\"kind\":\"CniPlugin\",\"apiVersion\":\"cnioperator.dev/v1alpha1\","
                + "\"metadata\":{\"name\":\"wb\"},\"spec\":{\"binaryName\":\"whereabouts\","
                + "\"url\":\"https://example.com/wb\",\"mirrors\":[\"https://b.example\"]}}",
            CniPlugin.class);

    assertThat(KnownFields.unknownFields(newer.getSpec(), "spec")).containsExactly("spec.mirrors");
  }

  @Test
  void specsOfThisBuildHaveNone() throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/examples/dbnet.yaml")) {
      CniNetwork known = Serialization.unmarshal(in, CniNetwork.class);
      assertThat(KnownFields.unknownFields(known.getSpec(), "spec")).isEmpty();
    }
    CniNode node = node("", "", "");
    assertThat(node.getSpec().getNetworks()).hasSize(2);
    assertThat(KnownFields.unknownFields(node.getSpec(), "spec")).isEmpty();
    assertThat(KnownFields.unknownFields(null, "spec")).isEmpty();
  }

  /**
   * The operator compares the spec it computes with the one a CniNode holds: an entry carrying a
   * field the desired one lacks is not the same entry.
   */
  @Test
  void specsThatDifferOnlyInAnUnknownFieldAreNotEqual() {
    CniNetwork newer = network(NEWER_NETWORK);
    CniNetwork other = network(NEWER_NETWORK.replace("futureField: x", "futureField: y"));
    CniNetwork without = network(NEWER_NETWORK.replace("  futureField: x\n", ""));

    assertThat(network(NEWER_NETWORK).getSpec()).isEqualTo(newer.getSpec());
    assertThat(network(NEWER_NETWORK).getSpec()).hasSameHashCodeAs(newer.getSpec());
    assertThat(other.getSpec()).isNotEqualTo(newer.getSpec());
    assertThat(without.getSpec()).isNotEqualTo(newer.getSpec());

    CniNodeSpec node = newerNode().getSpec();
    CniNodeSpec nested =
        node(", \"newThing\": {\"deep\": [1]}", ", \"jitterSeconds\": 3", ", \"arch\": \"arm64\"")
            .getSpec();
    assertThat(nested).isNotEqualTo(node);
    assertThat(nested.getNetworks().get(1)).isEqualTo(node.getNetworks().get(1));
  }

  /**
   * Every class a spec is made of remembers what it does not know: a spec class added without
   * extending KnownFields would let its new fields through unseen.
   */
  @Test
  void everySpecClassExtendsKnownFields() {
    Set<Class<?>> reached = new LinkedHashSet<>();
    for (Class<?> root :
        new Class<?>[] {CniNetworkSpec.class, CniNodeSpec.class, CniPluginSpec.class}) {
      reach(root, reached);
    }

    assertThat(reached)
        .as("the walk reaches the spec classes of this build")
        .contains(
            CniNetworkSpec.class,
            NetworkCheck.class,
            IpamCleanup.class,
            Rollout.class,
            RolloutProbe.class,
            NetworkAttachment.class,
            MultusAttachment.class,
            NodeSlices.class,
            CniNodeSpec.class,
            NodeNetwork.class,
            NodePlugin.class,
            CniPluginSpec.class);
    assertThat(reached)
        .allSatisfy(c -> assertThat(KnownFields.class).as(c.getName()).isAssignableFrom(c));
  }

  /** Adds {@code type} and every class its fields are made of, but for types not ours. */
  private static void reach(Type type, Set<Class<?>> reached) {
    if (type instanceof ParameterizedType p) {
      reach(p.getRawType(), reached);
      for (Type argument : p.getActualTypeArguments()) {
        reach(argument, reached);
      }
    } else if (type instanceof WildcardType w) {
      for (Type bound : w.getUpperBounds()) {
        reach(bound, reached);
      }
    } else if (type instanceof Class<?> c) {
      if (c.isArray()) {
        reach(c.getComponentType(), reached);
        return;
      }
      if (notOurs(c) || !reached.add(c)) {
        return;
      }
      for (Class<?> k = c;
          k != null && k != KnownFields.class && k != Object.class;
          k = k.getSuperclass()) {
        for (Field field : k.getDeclaredFields()) {
          if (!Modifier.isStatic(field.getModifiers()) && !field.isSynthetic()) {
            reach(field.getGenericType(), reached);
          }
        }
      }
    }
  }

  /** The JDK's types, fabric8's model (LabelSelector), Jackson's (free-form plugins) and enums. */
  private static boolean notOurs(Class<?> c) {
    String name = c.getName();
    return c.isPrimitive()
        || c.isEnum()
        || name.startsWith("java.")
        || name.startsWith("io.fabric8.kubernetes.api.model.")
        || name.startsWith("com.fasterxml.jackson.");
  }
}
