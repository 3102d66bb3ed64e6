package dev.cnioperator.operator.node;

import static dev.cnioperator.operator.TestNetworks.network;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniPlugin;
import dev.cnioperator.api.v1alpha1.CniPluginSpec;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.MultusAttachment;
import dev.cnioperator.api.v1alpha1.NetworkAttachment;
import dev.cnioperator.api.v1alpha1.NetworkScheduling;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodePlugin;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.Rollout;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutProbe;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.operator.TestNetworks;
import dev.cnioperator.operator.network.NetworkRenderer;
import dev.cnioperator.operator.network.Rendering;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class DesiredNodeSpecTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Node NODE =
      new NodeBuilder().withNewMetadata().withName("n1").withUid("u1").endMetadata().build();

  /** A network as the operator leaves it after an accepted reconcile. */
  private static CniNetwork accepted(String name, String created, int priority, String... plugins) {
    CniNetwork n = network(name, plugins);
    n.getMetadata().setCreationTimestamp(created);
    n.getSpec().setPriority(priority);
    var rendered = ((Rendering.Accepted) new NetworkRenderer().render(n)).rendered();
    n.setStatus(new CniNetworkStatus().setRendered(rendered));
    return n;
  }

  private static CniPlugin cniPlugin(String name, String binary, String created) {
    CniPlugin p = new CniPlugin();
    p.setMetadata(new ObjectMetaBuilder().withName(name).withCreationTimestamp(created).build());
    p.setSpec(
        new CniPluginSpec()
            .setBinaryName(binary)
            .setUrl("https://example.com/" + binary)
            .setSha256("c".repeat(64)));
    return p;
  }

  @Test
  void listsPlacedNetworksByFileNameWithDefaultsFilledIn() {
    CniNetwork late = accepted("late", "2026-01-01T00:00:00Z", 90, "{\"type\":\"bridge\"}");
    CniNetwork early = accepted("early", "2026-01-02T00:00:00Z", 10, "{\"type\":\"loopback\"}");

    CniNodeSpec spec = DesiredNodeSpec.compute(NODE, List.of(late, early), List.of(), null);

    assertThat(spec.getNetworks())
        .extracting(NodeNetwork::getFileName)
        .containsExactly("10-early.conflist", "90-late.conflist");
    NodeNetwork first = spec.getNetworks().get(0);
    assertThat(first.getSha256()).isEqualTo(early.getStatus().getRendered().getSha256());
    assertThat(first.getCheck().getEnabled()).isTrue();
    assertThat(first.getCheck().getIntervalSeconds()).isEqualTo(60);
    assertThat(first.getIpamCleanup().getMaxDeleteFraction()).isEqualTo(0.5);
  }

  /**
   * A Multus network's file goes to Multus's directory; every other network's entry names none, the
   * runtime's directory being the default.
   */
  @Test
  void aMultusNetworkGoesToMultussDirectoryAndOthersNameNone() {
    CniNetwork secondary = accepted("sec", "2026-01-01T00:00:00Z", 50, "{\"type\":\"macvlan\"}");
    secondary
        .getSpec()
        .setAttachment(
            new NetworkAttachment()
                .setMultus(new MultusAttachment().setNamespaces(List.of("shop"))));
    CniNetwork primary = accepted("pod", "2026-01-01T00:00:00Z", 10, "{\"type\":\"bridge\"}");

    CniNodeSpec spec = DesiredNodeSpec.compute(NODE, List.of(secondary, primary), List.of(), null);

    assertThat(spec.getNetworks())
        .extracting(NodeNetwork::getName, NodeNetwork::getDirectory)
        .containsExactly(tuple("pod", null), tuple("sec", ConfigDirectory.Multus));
  }

  /**
   * An edit that also turns the probe off rolls out: a node held back on the stable revision keeps
   * its spec as it is (no write, no new generation), an admitted node gets both.
   */
  @Test
  void aNodeHeldBackOnTheStableRevisionKeepsTheProbeSettingItHas() {
    CniNetwork before = accepted("net", "2026-01-01T00:00:00Z", 50, "{\"type\":\"bridge\"}");
    CniNodeSpec held = DesiredNodeSpec.compute(NODE, List.of(before), List.of(), null);
    RenderedConfig stable = before.getStatus().getRendered();
    assertThat(held.getNetworks().get(0).getProbe().getEnabled()).isTrue();

    CniNetwork edited = accepted("net", "2026-01-01T00:00:00Z", 50, "{\"type\":\"macvlan\"}");
    edited.getSpec().setRollout(new Rollout().setProbe(new RolloutProbe().setEnabled(false)));
    String revision = edited.getStatus().getRendered().getSha256();
    edited
        .getStatus()
        .setRollout(
            new RolloutStatus()
                .setRevision(revision)
                .setStableRevision(stable.getSha256())
                .setStable(stable)
                .setPhase(RolloutPhase.Progressing)
                .setBatch(List.of("canary")));

    CniNodeSpec heldBack = DesiredNodeSpec.compute(NODE, List.of(edited), List.of(), held);
    assertThat(heldBack).isEqualTo(held);

    edited.getStatus().getRollout().setBatch(List.of("canary", NODE.getMetadata().getName()));
    NodeNetwork admitted =
        DesiredNodeSpec.compute(NODE, List.of(edited), List.of(), held).getNetworks().get(0);
    assertThat(admitted.getRevision()).isEqualTo(revision);
    assertThat(admitted.getProbe().getEnabled()).isFalse();
  }

  /** A network of bridge and whereabouts, which the agent image does not carry. */
  private static CniNetwork needingWhereabouts() {
    return accepted(
        "n",
        "2026-01-01T00:00:00Z",
        50,
        "{\"type\":\"bridge\",\"ipam\":{\"type\":\"whereabouts\"}}");
  }

  @Test
  void pluginsComeFromTheOldestMatchingCniPluginElseTheAgentImage() {
    CniNetwork n = needingWhereabouts();
    CniPlugin newer = cniPlugin("wb-new", "whereabouts", "2026-02-02T00:00:00Z");
    CniPlugin older = cniPlugin("wb-old", "whereabouts", "2026-02-01T00:00:00Z");
    CniPlugin elsewhere = cniPlugin("bridge-gpu", "bridge", "2026-01-01T00:00:00Z");
    elsewhere
        .getSpec()
        .setNodeSelector(new LabelSelectorBuilder().addToMatchLabels("gpu", "true").build());

    CniNodeSpec spec =
        DesiredNodeSpec.compute(NODE, List.of(n), List.of(newer, older, elsewhere), null);

    assertThat(spec.getPlugins())
        .extracting(NodePlugin::getName, NodePlugin::getSource)
        .containsExactly(tuple("bridge", "bundled"), tuple("whereabouts", "wb-old"));
  }

  @Test
  void pluginsAreTheBinariesTheRevisionRecordedOrParsedWhenAnOlderOperatorRecordedNone() {
    CniNetwork recorded =
        accepted(
            "a", "2026-01-01T00:00:00Z", 10, "{\"type\":\"bridge\",\"ipam\":{\"type\":\"dhcp\"}}");
    CniNetwork older = accepted("b", "2026-01-01T00:00:00Z", 20, "{\"type\":\"macvlan\"}");
    older.getStatus().getRendered().setPluginBinaries(null);

    CniNodeSpec spec = DesiredNodeSpec.compute(NODE, List.of(recorded, older), List.of(), null);

    assertThat(recorded.getStatus().getRendered().getPluginBinaries())
        .containsExactly("bridge", "dhcp");
    assertThat(spec.getPlugins())
        .extracting(NodePlugin::getName)
        .containsExactly("bridge", "dhcp", "macvlan");
  }

  @Test
  void networksWithoutAnAcceptedRevisionOrBeingDeletedAreLeftOff() {
    CniNetwork fresh = network("fresh", "{\"type\":\"bridge\"}");
    fresh.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
    CniNetwork deleting = accepted("deleting", "2026-01-01T00:00:00Z", 50, "{\"type\":\"bridge\"}");
    deleting.getMetadata().setDeletionTimestamp("2026-01-03T00:00:00Z");

    CniNodeSpec spec = DesiredNodeSpec.compute(NODE, List.of(fresh, deleting), List.of(), null);

    assertThat(spec.getNetworks()).isEmpty();
    assertThat(spec.getPlugins()).isEmpty();
  }

  @Test
  void aRenderedStatusWhoseContentNoLongerMatchesItsShaIsNotWrittenToNodes() {
    CniNetwork tampered = accepted("t", "2026-01-01T00:00:00Z", 50, "{\"type\":\"bridge\"}");
    tampered
        .getStatus()
        .getRendered()
        .setContent("{\"cniVersion\":\"1.0.0\",\"name\":\"t\",\"plugins\":[{\"type\":\"evil\"}]}");

    assertThat(DesiredNodeSpec.compute(NODE, List.of(tampered), List.of(), null).getNetworks())
        .isEmpty();
  }

  @Test
  void aNodeIsRenderedWithTheSliceTheNetworksStatusListsAndWaitsWithoutOne() {
    CniNetwork sliced =
        network(
            "sliced",
            "{\"type\":\"macvlan\",\"master\":\"eth1\",\"ipam\":{\"type\":\"host-local\","
                + "\"ranges\":[[{\"subnet\":\"10.200.16.0/24\",\"rangeStart\":\"$(node.slice.rangeStart)\","
                + "\"rangeEnd\":\"$(node.slice.rangeEnd)\"}]]}}");
    sliced.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
    sliced
        .getSpec()
        .setNodeSlices(new NodeSlices().setSubnet("10.200.16.0/24").setPrefixLength(26));
    var rendered = ((Rendering.Accepted) new NetworkRenderer().render(sliced)).rendered();
    sliced.setStatus(new CniNetworkStatus().setRendered(rendered));

    NodeNetwork waiting =
        DesiredNodeSpec.compute(NODE, List.of(sliced), List.of(), null).getNetworks().get(0);
    sliced
        .getStatus()
        .setSlices(List.of(new NodeSlice().setNode("n1").setSlice("10.200.16.64/26")));
    NodeNetwork given =
        DesiredNodeSpec.compute(NODE, List.of(sliced), List.of(), null).getNetworks().get(0);

    assertThat(waiting.getContent()).isNull();
    assertThat(waiting.getUnavailable())
        .isEqualTo("node n1 has no slice: waiting for a slice of 10.200.16.0/24");
    assertThat(given.getUnavailable()).isNull();
    JsonNode range = TestNetworks.object(given.getContent()).at("/plugins/0/ipam/ranges/0/0");
    assertThat(range.get("rangeStart").textValue()).isEqualTo("10.200.16.64");
    assertThat(range.get("rangeEnd").textValue()).isEqualTo("10.200.16.127");
  }

  /** An accepted network whose plugins are appended to the network {@code target}. */
  private static CniNetwork appended(String name, String created, String target) {
    CniNetwork n = network(name, "{\"type\":\"bandwidth\"}");
    n.getMetadata().setCreationTimestamp(created);
    n.getSpec().setAppendTo(target);
    var rendered = ((Rendering.Accepted) new NetworkRenderer().render(n)).rendered();
    n.setStatus(new CniNetworkStatus().setRendered(rendered));
    return n;
  }

  /**
   * An appended network's attachments are the other product's: the agent gets cleanup off, even
   * when the spec turns it on, and the other cleanup settings as the spec has them.
   */
  @Test
  void anAppendedNetworkNamesItsTargetAndHasCleanupOffWhateverTheSpecSays() {
    CniNetwork n = appended("shaping", "2026-01-01T00:00:00Z", "cbr0");
    n.getSpec().setIpamCleanup(new IpamCleanup().setEnabled(true).setGracePeriodSeconds(30));

    NodeNetwork onNode =
        DesiredNodeSpec.compute(NODE, List.of(n), List.of(), null).getNetworks().get(0);

    assertThat(onNode.getName()).isEqualTo("shaping");
    assertThat(onNode.getAppendTo()).isEqualTo("cbr0");
    assertThat(onNode.getFileName()).isEqualTo("50-cbr0.conflist");
    assertThat(onNode.getDirectory()).isNull();
    assertThat(TestNetworks.object(onNode.getContent()).get("name").textValue()).isEqualTo("cbr0");
    assertThat(onNode.getIpamCleanup().getEnabled()).isFalse();
    assertThat(onNode.getIpamCleanup().getGracePeriodSeconds()).isEqualTo(30);
    assertThat(n.getSpec().getIpamCleanup().getEnabled()).as("the spec is left as it is").isTrue();
  }

  /** Whether a node appends follows the revision it holds, not the spec being rolled out. */
  @Test
  void aNodeHeldBackOnAnAppendedStableRevisionStillAppends() {
    CniNetwork before = appended("net", "2026-01-01T00:00:00Z", "cbr0");
    CniNodeSpec held = DesiredNodeSpec.compute(NODE, List.of(before), List.of(), null);
    RenderedConfig stable = before.getStatus().getRendered();

    CniNetwork edited = accepted("net", "2026-01-01T00:00:00Z", 50, "{\"type\":\"bridge\"}");
    edited
        .getStatus()
        .setRollout(
            new RolloutStatus()
                .setRevision(edited.getStatus().getRendered().getSha256())
                .setStableRevision(stable.getSha256())
                .setStable(stable)
                .setPhase(RolloutPhase.Progressing)
                .setBatch(List.of("canary")));

    NodeNetwork heldBack =
        DesiredNodeSpec.compute(NODE, List.of(edited), List.of(), held).getNetworks().get(0);
    assertThat(heldBack).isEqualTo(held.getNetworks().get(0));
    assertThat(heldBack.getAppendTo()).isEqualTo("cbr0");
    assertThat(heldBack.getIpamCleanup().getEnabled()).isFalse();

    edited.getStatus().getRollout().setBatch(List.of("canary", NODE.getMetadata().getName()));
    NodeNetwork admitted =
        DesiredNodeSpec.compute(NODE, List.of(edited), List.of(), held).getNetworks().get(0);
    assertThat(admitted.getAppendTo()).isNull();
    assertThat(admitted.getIpamCleanup().getEnabled()).isTrue();
  }

  /**
   * spec.scheduling.publishDevices reaches the node as publishDevice, outside the revision; a
   * network that does not publish (unset or false) has the entry it had before the field existed.
   */
  @Test
  void aNetworkThatPublishesDevicesSaysSoToTheNodeWithoutANewRevision() {
    CniNetwork plain = accepted("macvlan", "2026-01-01T00:00:00Z", 10, "{\"type\":\"macvlan\"}");
    CniNodeSpec held = DesiredNodeSpec.compute(NODE, List.of(plain), List.of(), null);
    String before = Serialization.asJson(held);

    CniNetwork off = accepted("macvlan", "2026-01-01T00:00:00Z", 10, "{\"type\":\"macvlan\"}");
    off.getSpec().setScheduling(new NetworkScheduling().setPublishDevices(false));
    assertThat(Serialization.asJson(DesiredNodeSpec.compute(NODE, List.of(off), List.of(), held)))
        .isEqualTo(before)
        .doesNotContain("publishDevice");

    CniNetwork on = accepted("macvlan", "2026-01-01T00:00:00Z", 10, "{\"type\":\"macvlan\"}");
    on.getSpec().setScheduling(new NetworkScheduling().setPublishDevices(true));
    NodeNetwork onNode =
        DesiredNodeSpec.compute(NODE, List.of(on), List.of(), held).getNetworks().get(0);
    assertThat(onNode.getPublishDevice()).isTrue();
    assertThat(onNode.getRevision()).isEqualTo(held.getNetworks().get(0).getRevision());
    assertThat(onNode.setPublishDevice(null)).isEqualTo(held.getNetworks().get(0));
  }

  /** An appended network as {@link #appended}, with spec.appendAs {@code placement}. */
  private static CniNetwork appendedAs(AppendPlacement placement) {
    CniNetwork n = appended("shaping", "2026-01-01T00:00:00Z", "cbr0");
    n.getSpec().setAppendAs(placement);
    return n;
  }

  @Test
  void anAppendedNetworkAskedToBeHeldAsDropInsSaysSoToTheNode() {
    NodeNetwork onNode =
        DesiredNodeSpec.compute(NODE, List.of(appendedAs(AppendPlacement.DropIn)), List.of(), null)
            .getNetworks()
            .get(0);

    assertThat(onNode.getAppendTo()).isEqualTo("cbr0");
    assertThat(onNode.getAppendAs()).isEqualTo(AppendPlacement.DropIn);
  }

  /**
   * InPlace is the default and is written as nothing: the CniNode spec of a network that sets it,
   * or leaves it out, is byte for byte what it was before the field existed, so an upgrade writes
   * no node.
   */
  @Test
  void anAppendedNetworkHeldInPlaceOrUnsetNamesNoPlacement() {
    String unset =
        Serialization.asJson(
            DesiredNodeSpec.compute(NODE, List.of(appendedAs(null)), List.of(), null));
    String inPlace =
        Serialization.asJson(
            DesiredNodeSpec.compute(
                NODE, List.of(appendedAs(AppendPlacement.InPlace)), List.of(), null));

    assertThat(unset).doesNotContain("appendAs").contains("\"appendTo\":\"cbr0\"");
    assertThat(inPlace).isEqualTo(unset);
  }

  /**
   * spec.appendAs is not part of the revision (an operator of 0.2.0 would take a revision covering
   * it for damaged): a change of it alone keeps the revision and reaches the node as the spec's
   * other settings do.
   */
  @Test
  void aChangeOfAppendAsAloneChangesTheNodesSpecButNotItsRevision() {
    CniNetwork before = appendedAs(null);
    CniNodeSpec held = DesiredNodeSpec.compute(NODE, List.of(before), List.of(), null);

    CniNetwork edited = appendedAs(AppendPlacement.DropIn);
    assertThat(edited.getStatus().getRendered()).isEqualTo(before.getStatus().getRendered());
    NodeNetwork onNode =
        DesiredNodeSpec.compute(NODE, List.of(edited), List.of(), held).getNetworks().get(0);

    assertThat(onNode.getAppendAs()).isEqualTo(AppendPlacement.DropIn);
    assertThat(onNode.getRevision()).isEqualTo(held.getNetworks().get(0).getRevision());
    assertThat(onNode.setAppendAs(null)).isEqualTo(held.getNetworks().get(0));
  }

  /**
   * An edit of the plugins that also asks for drop-ins rolls out: a node held back on the stable
   * revision keeps its entries where they are, an admitted node gets both.
   */
  @Test
  void aNodeHeldBackOnTheStableRevisionKeepsThePlacementItHas() {
    CniNetwork before = appendedAs(null);
    CniNodeSpec held = DesiredNodeSpec.compute(NODE, List.of(before), List.of(), null);
    RenderedConfig stable = before.getStatus().getRendered();

    CniNetwork edited = network("shaping", "{\"type\":\"tuning\"}");
    edited.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
    edited.getSpec().setAppendTo("cbr0");
    edited.getSpec().setAppendAs(AppendPlacement.DropIn);
    RenderedConfig revision =
        ((Rendering.Accepted) new NetworkRenderer().render(edited)).rendered();
    edited.setStatus(
        new CniNetworkStatus()
            .setRendered(revision)
            .setRollout(
                new RolloutStatus()
                    .setRevision(revision.getSha256())
                    .setStableRevision(stable.getSha256())
                    .setStable(stable)
                    .setPhase(RolloutPhase.Progressing)
                    .setBatch(List.of("canary"))));

    CniNodeSpec heldBack = DesiredNodeSpec.compute(NODE, List.of(edited), List.of(), held);
    assertThat(heldBack).isEqualTo(held);

    edited.getStatus().getRollout().setBatch(List.of("canary", NODE.getMetadata().getName()));
    NodeNetwork admitted =
        DesiredNodeSpec.compute(NODE, List.of(edited), List.of(), held).getNetworks().get(0);
    assertThat(admitted.getRevision()).isEqualTo(revision.getSha256());
    assertThat(admitted.getAppendAs()).isEqualTo(AppendPlacement.DropIn);
  }

  /**
   * A node that joins while a network of its own is being turned into drop-ins onto another gets
   * the stable revision, a file of its own, and no placement, which only an appended entry has.
   */
  @Test
  void aNodeGivenARevisionThatAppendsNothingGetsNoPlacement() {
    CniNetwork before = accepted("net", "2026-01-01T00:00:00Z", 50, "{\"type\":\"bandwidth\"}");
    RenderedConfig stable = before.getStatus().getRendered();

    CniNetwork edited = network("net", "{\"type\":\"bandwidth\"}");
    edited.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
    edited.getSpec().setAppendTo("cbr0");
    edited.getSpec().setAppendAs(AppendPlacement.DropIn);
    RenderedConfig revision =
        ((Rendering.Accepted) new NetworkRenderer().render(edited)).rendered();
    edited.setStatus(
        new CniNetworkStatus()
            .setRendered(revision)
            .setRollout(
                new RolloutStatus()
                    .setRevision(revision.getSha256())
                    .setStableRevision(stable.getSha256())
                    .setStable(stable)
                    .setPhase(RolloutPhase.Progressing)
                    .setBatch(List.of("canary"))));

    NodeNetwork joined =
        DesiredNodeSpec.compute(NODE, List.of(edited), List.of(), null).getNetworks().get(0);

    assertThat(joined.getRevision()).isEqualTo(stable.getSha256());
    assertThat(joined.getAppendTo()).isNull();
    assertThat(joined.getAppendAs()).isNull();
  }

  /** One network takes the plugins of one CniNetwork: the older keeps it, the newer is left off. */
  @Test
  void ofTwoNetworksAppendingToOneTheOlderIsPlaced() {
    CniNetwork older = appended("shaping", "2026-01-01T00:00:00Z", "cbr0");
    CniNetwork newer = appended("tuning", "2026-01-02T00:00:00Z", "cbr0");
    CniNetwork elsewhere = appended("calico-extra", "2026-01-03T00:00:00Z", "k8s-pod-network");

    CniNodeSpec spec =
        DesiredNodeSpec.compute(NODE, List.of(newer, older, elsewhere), List.of(), null);

    assertThat(spec.getNetworks())
        .extracting(NodeNetwork::getName, NodeNetwork::getAppendTo)
        .containsExactly(tuple("shaping", "cbr0"), tuple("calico-extra", "k8s-pod-network"));
  }

  /**
   * {@code spec} as an informer reads it once {@code edit} has changed its JSON: a field this build
   * does not know is remembered (a newer release's CRD, left in place by a rollback, keeps it).
   */
  @SuppressWarnings("unchecked")
  private static <T> T readBack(T spec, Consumer<ObjectNode> edit) {
    ObjectNode json = JSON.valueToTree(spec);
    edit.accept(json);
    return (T) JSON.convertValue(json, spec.getClass());
  }

  /**
   * Issue 52: the network is refused (NetworkRendererTest) and each node keeps its entry as it
   * holds it, though the spec's settings that reach nodes changed beside the unknown field.
   */
  @Test
  void aNetworkWithAFieldThisOperatorDoesNotKnowLeavesTheEntryTheNodeHolds() {
    CniNetwork before = accepted("net", "2026-01-01T00:00:00Z", 50, "{\"type\":\"bridge\"}");
    CniNodeSpec held = DesiredNodeSpec.compute(NODE, List.of(before), List.of(), null);
    Consumer<ObjectNode> nodeSettings =
        spec -> {
          spec.putObject("check").put("enabled", true).put("intervalSeconds", 5);
          spec.putObject("ipamCleanup").put("enabled", false);
          spec.putObject("rollout").putObject("probe").put("enabled", false);
        };

    CniNetwork known = accepted("net", "2026-01-01T00:00:00Z", 50, "{\"type\":\"bridge\"}");
    known.setSpec(readBack(known.getSpec(), nodeSettings));
    NodeNetwork edited =
        DesiredNodeSpec.compute(NODE, List.of(known), List.of(), held).getNetworks().get(0);
    assertThat(edited.getCheck().getIntervalSeconds()).isEqualTo(5);
    assertThat(edited.getIpamCleanup().getEnabled()).isFalse();
    assertThat(edited.getProbe().getEnabled()).isFalse();

    CniNetwork newer = accepted("net", "2026-01-01T00:00:00Z", 50, "{\"type\":\"bridge\"}");
    newer.setSpec(
        readBack(newer.getSpec(), nodeSettings.andThen(spec -> spec.put("futureField", "x"))));
    CniNodeSpec kept = DesiredNodeSpec.compute(NODE, List.of(newer), List.of(), held);
    assertThat(Serialization.asJson(kept)).isEqualTo(Serialization.asJson(held));
    assertThat(kept).isEqualTo(held);
  }

  @Test
  void aNetworkWithAFieldThisOperatorDoesNotKnowIsPlacedOnNoNodeThatDoesNotHoldIt() {
    CniNetwork other = accepted("other", "2026-01-01T00:00:00Z", 10, "{\"type\":\"loopback\"}");
    CniNodeSpec held = DesiredNodeSpec.compute(NODE, List.of(other), List.of(), null);
    CniNetwork newer =
        accepted(
            "net",
            "2026-01-01T00:00:00Z",
            50,
            "{\"type\":\"bridge\",\"ipam\":{\"type\":\"dhcp\"}}");
    newer.setSpec(readBack(newer.getSpec(), spec -> spec.putObject("rollout").put("surge", 2)));

    CniNodeSpec spec = DesiredNodeSpec.compute(NODE, List.of(other, newer), List.of(), held);
    assertThat(spec).isEqualTo(held);
    assertThat(spec.getPlugins()).extracting(NodePlugin::getName).containsExactly("loopback");
    CniNodeSpec fresh = DesiredNodeSpec.compute(NODE, List.of(newer), List.of(), null);
    assertThat(fresh.getNetworks()).isEmpty();
    assertThat(fresh.getPlugins()).isEmpty();
  }

  @Test
  void aCniPluginWithAFieldThisOperatorDoesNotKnowLeavesTheEntryTheNodeHolds() {
    CniNetwork n = needingWhereabouts();
    CniPlugin plugin = cniPlugin("wb", "whereabouts", "2026-02-01T00:00:00Z");
    CniNodeSpec held = DesiredNodeSpec.compute(NODE, List.of(n), List.of(plugin), null);
    Consumer<ObjectNode> moved =
        spec -> spec.put("url", "https://example.com/v2/whereabouts").put("sha256", "d".repeat(64));

    CniPlugin known = cniPlugin("wb", "whereabouts", "2026-02-01T00:00:00Z");
    known.setSpec(readBack(known.getSpec(), moved));
    assertThat(DesiredNodeSpec.compute(NODE, List.of(n), List.of(known), held).getPlugins())
        .extracting(NodePlugin::getName, NodePlugin::getUrl)
        .containsExactly(
            tuple("bridge", null), tuple("whereabouts", "https://example.com/v2/whereabouts"));

    CniPlugin newer = cniPlugin("wb", "whereabouts", "2026-02-01T00:00:00Z");
    newer.setSpec(
        readBack(
            newer.getSpec(),
            moved.andThen(spec -> spec.putArray("mirrors").add("https://mirror.example"))));
    CniNodeSpec kept = DesiredNodeSpec.compute(NODE, List.of(n), List.of(newer), held);
    assertThat(kept).isEqualTo(held);
    assertThat(kept.getPlugins().get(1).getUrl()).isEqualTo("https://example.com/whereabouts");
  }
}
