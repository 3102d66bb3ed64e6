package dev.cnioperator.operator.template;

import static dev.cnioperator.operator.TestNetworks.network;
import static dev.cnioperator.operator.TestNetworks.object;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.operator.network.NetworkRenderer;
import dev.cnioperator.operator.network.Rendering;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeTemplateTest {
  private static final NetworkRenderer RENDERER = new NetworkRenderer();

  private static final String BRIDGE =
      "{\"type\":\"bridge\",\"bridge\":\"cni0\",\"ipam\":{\"type\":\"host-local\","
          + "\"ranges\":\"$(node.hostLocalRanges)\"}}";

  private static Node node(String name, List<String> cidrs, Map<String, String> labels) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .withAnnotations(Map.of("example.com/uplink", "eno2"))
        .endMetadata()
        .withNewSpec()
        .withPodCIDR(cidrs.isEmpty() ? null : cidrs.get(0))
        .withPodCIDRs(cidrs)
        .endSpec()
        .withNewStatus()
        .addNewAddress("10.231.0.2", "InternalIP")
        .addNewAddress(name, "Hostname")
        .endStatus()
        .build();
  }

  private static RenderedConfig accepted(CniNetwork network) {
    Rendering r = RENDERER.render(network);
    assertThat(r).isInstanceOf(Rendering.Accepted.class);
    return ((Rendering.Accepted) r).rendered();
  }

  private static NodeConflist.Ready ready(RenderedConfig revision, Node node) {
    NodeConflist c = NodeConflist.of(revision, NodeValues.of(node), List.of());
    assertThat(c).isInstanceOf(NodeConflist.Ready.class);
    return (NodeConflist.Ready) c;
  }

  private static List<ConfigProblem> refusals(String plugin) {
    Rendering r = RENDERER.render(network("t", plugin));
    assertThat(r).isInstanceOf(Rendering.Refused.class);
    return ((Rendering.Refused) r).problems();
  }

  @Test
  void eachNodeGetsItsOwnRangeFromItsPodCidr() {
    RenderedConfig revision = accepted(network("pods", BRIDGE));
    NodeConflist.Ready a = ready(revision, node("a", List.of("10.232.1.0/24"), Map.of()));
    NodeConflist.Ready b = ready(revision, node("b", List.of("10.232.2.0/24"), Map.of()));

    assertThat(object(a.content()).at("/plugins/0/ipam/ranges"))
        .isEqualTo(object("{\"r\":[[{\"subnet\":\"10.232.1.0/24\"}]]}").get("r"));
    assertThat(object(b.content()).at("/plugins/0/ipam/ranges/0/0/subnet").textValue())
        .isEqualTo("10.232.2.0/24");
    assertThat(a.sha256()).isNotEqualTo(b.sha256()).isNotEqualTo(revision.getSha256());
    // The revision keeps the template; its sha256 is the template's.
    assertThat(revision.getContent()).contains("\"$(node.hostLocalRanges)\"");
  }

  @Test
  void dualStackGivesOneRangeSetPerFamilyAndTypedValues() {
    CniNetwork n =
        network(
            "ds",
            "{\"type\":\"bridge\",\"ipam\":{\"type\":\"host-local\",\"ranges\":\"$(node.hostLocalRanges)\"},"
                + "\"v4\":\"$(node.podCIDR.ipv4)\",\"v6\":\"$(node.podCIDR.ipv6)\","
                + "\"all\":\"$(node.podCIDRs)\",\"ips\":\"$(node.internalIPs)\",\"ip\":\"$(node.internalIP)\","
                + "\"me\":\"$(node.name)\"}");
    ObjectNode c =
        object(
            ready(accepted(n), node("ds1", List.of("10.232.3.0/24", "fd00:232:3::/64"), Map.of()))
                .content());

    assertThat(c.at("/plugins/0/ipam/ranges").size()).isEqualTo(2);
    assertThat(c.at("/plugins/0/ipam/ranges/1/0/subnet").textValue()).isEqualTo("fd00:232:3::/64");
    assertThat(c.at("/plugins/0/v4").textValue()).isEqualTo("10.232.3.0/24");
    assertThat(c.at("/plugins/0/v6").textValue()).isEqualTo("fd00:232:3::/64");
    assertThat(c.at("/plugins/0/all").isArray()).isTrue();
    assertThat(c.at("/plugins/0/all").size()).isEqualTo(2);
    assertThat(c.at("/plugins/0/ips/0").textValue()).isEqualTo("10.231.0.2");
    assertThat(c.at("/plugins/0/ip").textValue()).isEqualTo("10.231.0.2");
    assertThat(c.at("/plugins/0/me").textValue()).isEqualTo("ds1");
  }

  @Test
  void labelsAndAnnotationsByKey() {
    CniNetwork n =
        network(
            "lan",
            "{\"type\":\"macvlan\",\"master\":\"$(node.labels[example.com/nic])\","
                + "\"uplink\":\"$(node.annotations[example.com/uplink])\"}");
    ObjectNode c =
        object(
            ready(accepted(n), node("m1", List.of(), Map.of("example.com/nic", "ens5"))).content());

    assertThat(c.at("/plugins/0/master").textValue()).isEqualTo("ens5");
    assertThat(c.at("/plugins/0/uplink").textValue()).isEqualTo("eno2");
  }

  @Test
  void aNodeLackingAValueWaitsWithAMessageNamingNodeAndValue() {
    RenderedConfig revision = accepted(network("pods", BRIDGE));

    NodeConflist c =
        NodeConflist.of(revision, NodeValues.of(node("late", List.of(), Map.of())), List.of());

    assertThat(c).isInstanceOf(NodeConflist.Waiting.class);
    assertThat(((NodeConflist.Waiting) c).message())
        .isEqualTo(
            "node late has no spec.podCIDR ($(node.hostLocalRanges) at"
                + " spec.plugins[0].ipam.ranges)");
    NodeConflist label =
        NodeConflist.of(
            accepted(network("lan", "{\"type\":\"macvlan\",\"master\":\"$(node.labels[nic])\"}")),
            NodeValues.of(node("m2", List.of(), Map.of())),
            List.of());
    assertThat(((NodeConflist.Waiting) label).message()).startsWith("node m2 has no label nic");
  }

  @Test
  void doubleDollarIsALiteralAndAForeignPlaceholderPassesThrough() {
    CniNetwork n =
        network(
            "lit",
            "{\"type\":\"bridge\",\"a\":\"$$(node.name)\",\"b\":\"x-$$(node.podCIDR)-y\",\"c\":\"$(FOO)\"}");
    RenderedConfig revision = accepted(n);
    ObjectNode c = object(ready(revision, node("l1", List.of(), Map.of())).content());

    assertThat(c.at("/plugins/0/a").textValue()).isEqualTo("$(node.name)");
    assertThat(c.at("/plugins/0/b").textValue()).isEqualTo("x-$(node.podCIDR)-y");
    assertThat(c.at("/plugins/0/c").textValue()).isEqualTo("$(FOO)");
  }

  @Test
  void aNetworkWithoutPlaceholdersIsTheSameBytesOnEveryNode() {
    RenderedConfig revision = accepted(network("plain", "{\"type\":\"bridge\"}"));

    NodeConflist.Ready r = ready(revision, node("p1", List.of("10.232.9.0/24"), Map.of()));

    assertThat(r.content()).isEqualTo(revision.getContent());
    assertThat(r.sha256()).isEqualTo(revision.getSha256());
  }

  @Test
  void anUnknownPlaceholderIsRefusedNamingTheField() {
    assertThat(
            refusals(
                "{\"type\":\"bridge\",\"ipam\":{\"type\":\"host-local\",\"subnet\":\"$(node.podCidr)\"}}"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("spec.plugins[0].ipam.subnet");
              assertThat(p.rule()).isEqualTo(NodeTemplate.RULE);
              assertThat(p.message()).contains("unknown placeholder $(node.podCidr)");
            });
    assertThat(refusals("{\"type\":\"bridge\",\"x\":\"$(node.labels)\"}"))
        .extracting(ConfigProblem::path)
        .containsExactly("spec.plugins[0].x");
  }

  @Test
  void textAroundAPlaceholderIsRefused() {
    assertThat(refusals("{\"type\":\"bridge\",\"bridge\":\"br-$(node.name)\"}"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("spec.plugins[0].bridge");
              assertThat(p.message()).contains("must be the whole value").contains("$$(");
            });
  }

  @Test
  void aListWhereAStringIsReadIsRefused() {
    assertThat(
            refusals(
                "{\"type\":\"bridge\",\"ipam\":{\"type\":\"host-local\",\"subnet\":\"$(node.podCIDRs)\"}}"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("spec.plugins[0].ipam.subnet");
              assertThat(p.message())
                  .isEqualTo("subnet is a string, but $(node.podCIDRs) is a list");
            });
    assertThat(
            refusals(
                "{\"type\":\"bridge\",\"ipam\":{\"type\":\"host-local\",\"ranges\":\"$(node.podCIDR)\"}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("spec.plugins[0].ipam.ranges");
  }

  @Test
  void aPlaceholderCannotNameThePluginBinary() {
    assertThat(refusals("{\"type\":\"bridge\",\"ipam\":{\"type\":\"$(node.labels[ipam])\"}}"))
        .extracting(ConfigProblem::path)
        .contains("spec.plugins[0].ipam.type");
  }

  @Test
  void aTemplateIsValidatedAsRenderedSoSpecRulesStillApply() {
    // dns.nameservers must be a list of strings: a list placeholder is fine, a string is not.
    assertThat(
            RENDERER.render(
                network(
                    "dns",
                    "{\"type\":\"bridge\",\"dns\":{\"nameservers\":\"$(node.internalIPs)\"}}")))
        .isInstanceOf(Rendering.Accepted.class);
    assertThat(refusals("{\"type\":\"bridge\",\"dns\":{\"nameservers\":\"$(node.internalIP)\"}}"))
        .extracting(ConfigProblem::path)
        .allMatch(p -> p.startsWith("spec.plugins[0].dns"));
  }

  /** host-local on one shared subnet, each node handing out its own slice of it. */
  private static final String SLICED =
      "{\"type\":\"macvlan\",\"master\":\"eth1\",\"slice\":\"$(node.slice)\","
          + "\"ipam\":{\"type\":\"host-local\",\"ranges\":[[{\"subnet\":\"10.200.16.0/24\","
          + "\"rangeStart\":\"$(node.slice.rangeStart)\",\"rangeEnd\":\"$(node.slice.rangeEnd)\","
          + "\"gateway\":\"10.200.16.1\"}]]}}";

  private static CniNetwork sliced(String plugin) {
    CniNetwork n = network("sliced", plugin);
    n.getSpec().setNodeSlices(new NodeSlices().setSubnet("10.200.16.0/24").setPrefixLength(26));
    return n;
  }

  private static final List<NodeSlice> SLICES =
      List.of(
          new NodeSlice().setNode("a").setSlice("10.200.16.0/26"),
          new NodeSlice().setNode("b").setSlice("10.200.16.64/26"),
          new NodeSlice().setNode("d").setSlice("10.200.16.192/26"));

  private static NodeConflist forNode(RenderedConfig revision, String node) {
    return NodeConflist.of(revision, NodeValues.of(node(node, List.of(), Map.of())), SLICES);
  }

  private static JsonNode range(NodeConflist c) {
    assertThat(c).isInstanceOf(NodeConflist.Ready.class);
    return object(((NodeConflist.Ready) c).content()).at("/plugins/0/ipam/ranges/0/0");
  }

  @Test
  void eachNodeGetsItsSliceAndTheRangeHostLocalMayHandOutOfIt() {
    RenderedConfig revision = accepted(sliced(SLICED));
    assertThat(revision.getNodeSlices()).isEqualTo(sliced(SLICED).getSpec().getNodeSlices());

    NodeConflist a = forNode(revision, "a");
    NodeConflist b = forNode(revision, "b");

    assertThat(object(((NodeConflist.Ready) a).content()).at("/plugins/0/slice").textValue())
        .isEqualTo("10.200.16.0/26");
    assertThat(range(a).get("subnet").textValue()).isEqualTo("10.200.16.0/24");
    assertThat(range(a).get("rangeStart").textValue())
        .as("the subnet's network address is no host")
        .isEqualTo("10.200.16.1");
    assertThat(range(a).get("rangeEnd").textValue()).isEqualTo("10.200.16.63");
    assertThat(range(b).get("rangeStart").textValue()).isEqualTo("10.200.16.64");
    assertThat(range(b).get("rangeEnd").textValue()).isEqualTo("10.200.16.127");
    assertThat(range(forNode(revision, "d")).get("rangeEnd").textValue())
        .as("nor its broadcast address")
        .isEqualTo("10.200.16.254");
  }

  @Test
  void aNodeWithoutASliceWaitsAndSaysWhyOnce() {
    RenderedConfig revision = accepted(sliced(SLICED));

    NodeConflist waiting = forNode(revision, "c");
    NodeConflist full =
        NodeConflist.of(
            revision,
            NodeValues.of(node("e", List.of(), Map.of())),
            List.of(
                SLICES.get(0),
                SLICES.get(1),
                SLICES.get(2),
                new NodeSlice().setNode("c").setSlice("10.200.16.128/26")));

    assertThat(((NodeConflist.Waiting) waiting).message())
        .isEqualTo("node c has no slice: waiting for a slice of 10.200.16.0/24");
    assertThat(((NodeConflist.Waiting) full).message())
        .isEqualTo(
            "node e has no slice: no free /26 slice left in 10.200.16.0/24: all 4 are held by"
                + " other nodes");
  }

  @Test
  void aNetworkThatDeclaresSlicesGoesOnlyToNodesWithOneEvenWhenItUsesNone() {
    RenderedConfig plain = accepted(sliced("{\"type\":\"bridge\"}"));

    assertThat(forNode(plain, "a")).isInstanceOf(NodeConflist.Ready.class);
    assertThat(forNode(plain, "c"))
        .isEqualTo(
            new NodeConflist.Waiting("node c has no slice: waiting for a slice of 10.200.16.0/24"));
  }

  @Test
  void aSliceValueOfANetworkWithoutNodeSlicesIsRefusedNamingThePluginField() {
    assertThat(refusals(SLICED))
        .extracting(ConfigProblem::path, ConfigProblem::message)
        .containsExactly(
            tuple(
                "spec.plugins[0].ipam.ranges[0][0].rangeEnd",
                "$(node.slice.rangeEnd) is the node's slice of spec.nodeSlices, which this network"
                    + " does not declare: add spec.nodeSlices (subnet, prefixLength)"),
            tuple(
                "spec.plugins[0].ipam.ranges[0][0].rangeStart",
                "$(node.slice.rangeStart) is the node's slice of spec.nodeSlices, which this"
                    + " network does not declare: add spec.nodeSlices (subnet, prefixLength)"),
            tuple(
                "spec.plugins[0].slice",
                "$(node.slice) is the node's slice of spec.nodeSlices, which this network does"
                    + " not declare: add spec.nodeSlices (subnet, prefixLength)"));
    assertThat(refusals("{\"type\":\"bridge\",\"x\":\"$(node.slices)\"}"))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p.message())
                    .endsWith("node.slice, node.slice.rangeStart, node.slice.rangeEnd"));
  }

  @Test
  void aRevisionIsATemplateWhenAStringInItHoldsAPlaceholderOrAnEscape() {
    assertThat(NodeTemplate.isTemplate("{\"ranges\":\"$(node.hostLocalRanges)\"}")).isTrue();
    assertThat(NodeTemplate.isTemplate("{\"args\":\"$$(FOO)\"}")).isTrue();
    assertThat(NodeTemplate.isTemplate("{\"args\":\"$(FOO)\"}")).as("not ours").isFalse();
    assertThat(NodeTemplate.isTemplate("{\"$(node.name)\":1}")).as("a key").isFalse();
    assertThat(NodeTemplate.isTemplate((String) null)).isFalse();
  }

  @Test
  void oneRevisionRenderedForManyNodesGivesWhatRenderingEachAloneGives() {
    RenderedConfig revision = accepted(sliced(SLICED));
    RevisionRenderer renderer = RevisionRenderer.of(revision, SLICES);

    for (String node : List.of("a", "b", "c", "d")) {
      assertThat(renderer.forNode(NodeValues.of(node(node, List.of(), Map.of()))))
          .as(node)
          .isEqualTo(forNode(revision, node));
    }
    RenderedConfig plain = accepted(network("plain", "{\"type\":\"bridge\"}"));
    assertThat(
            RevisionRenderer.of(plain, List.of())
                .forNode(NodeValues.of(node("a", List.of(), Map.of()))))
        .isEqualTo(
            NodeConflist.of(plain, NodeValues.of(node("a", List.of(), Map.of())), List.of()));
  }

  @Test
  void theNodeReconcilersRevisionsAreReadAgainOnlyWhenTheInformerHoldsNewObjects() {
    RenderersByRevision renderers = new RenderersByRevision();
    RenderedConfig revision = accepted(sliced(SLICED));
    List<NodeSlice> slices = SLICES;

    RevisionRenderer first = renderers.of("sliced", revision, slices);

    assertThat(renderers.of("sliced", revision, slices)).isSameAs(first);
    List<NodeSlice> withC =
        List.of(
            SLICES.get(0),
            SLICES.get(1),
            SLICES.get(2),
            new NodeSlice().setNode("c").setSlice("10.200.16.128/26"));
    NodeConflist c =
        renderers
            .of("sliced", revision, withC)
            .forNode(NodeValues.of(node("c", List.of(), Map.of())));
    assertThat(range(c).get("rangeStart").textValue())
        .as("a new status.slices is read: c now has its slice")
        .isEqualTo("10.200.16.128");
    assertThat(renderers.of("sliced", revision, new java.util.ArrayList<>(slices)))
        .as("an equal list that is another object is read again, not compared")
        .isNotSameAs(first);
  }
}
