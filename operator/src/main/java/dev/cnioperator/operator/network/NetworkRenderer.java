package dev.cnioperator.operator.network;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkDefaults;
import dev.cnioperator.api.v1alpha1.CniNetworkSpec;
import dev.cnioperator.api.v1alpha1.KnownFields;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.SpecVersion;
import dev.cnioperator.cni.config.CanonicalJson;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.cni.config.ConfigRule;
import dev.cnioperator.cni.config.ConfigValidator;
import dev.cnioperator.cni.config.ConflistRule;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.operator.placement.AcceptedRevision;
import dev.cnioperator.operator.placement.LabelSelectors;
import dev.cnioperator.operator.slices.SliceOfNode;
import dev.cnioperator.operator.slices.SubnetSlicing;
import dev.cnioperator.operator.template.NodeTemplate;
import dev.cnioperator.operator.template.NodeValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a CniNetwork spec into the configuration list nodes get (deterministic bytes and sha256),
 * or into the list of problems that refuse it, each named by its field under "spec.".
 *
 * <p>An appended network (spec.appendTo) renders the same way, as a list named after the network it
 * appends to, whose plugins are the entries the agent appends to that network's file; its file name
 * is only the agent's key for it, nothing is written under it.
 */
public final class NetworkRenderer {

  /** Linux NAME_MAX. */
  private static final int MAX_FILE_NAME_BYTES = 255;

  /** The rules this class checks beyond the configuration list's own. */
  private enum Rule implements ConfigRule {
    FILE_NAME_LENGTH("file-name-length"),
    /** A field that an appended network cannot set: it belongs to the other product's list. */
    NOT_FOR_APPENDED("not-for-appended"),
    /** A field this build does not know: the spec was written for a newer operator. */
    UNKNOWN_FIELD("unknown-field");

    private final String id;

    Rule(String id) {
      this.id = id;
    }

    @Override
    public String id() {
      return id;
    }
  }

  /** Validates and renders {@code network}'s current spec. */
  public Rendering render(CniNetwork network) {
    CniNetworkSpec spec = network.getSpec();
    List<String> unknown = KnownFields.unknownFields(spec, "spec");
    if (!unknown.isEmpty()) {
      // Acting on the part understood could write to every node a network the author did not
      // mean (a rollback to a build before spec.appendTo would write the chain as a file of its
      // own): the whole spec is refused, and the nodes keep what they hold.
      return new Rendering.Refused(
          ConditionReason.UNKNOWN_FIELDS,
          unknown.stream()
              .map(
                  path ->
                      new ConfigProblem(
                          path,
                          Rule.UNKNOWN_FIELD,
                          "not a field this operator knows: the network was written for a newer"
                              + " version of cni-operator; upgrade the operator, or remove the"
                              + " field"))
              .toList());
    }
    List<ConfigProblem> selectorProblems =
        LabelSelectors.validate(spec.getNodeSelector(), "spec.nodeSelector");
    if (!selectorProblems.isEmpty()) {
      return new Rendering.Refused(ConditionReason.INVALID_NODE_SELECTOR, selectorProblems);
    }
    List<ConfigProblem> sliceProblems =
        SubnetSlicing.problems(spec.getNodeSlices(), "spec.nodeSlices");
    if (!sliceProblems.isEmpty()) {
      return new Rendering.Refused(ConditionReason.INVALID_NODE_SLICES, sliceProblems);
    }
    ObjectNode conflist = conflist(network);
    boolean template = NodeTemplate.isTemplate(conflist);
    List<ConfigProblem> problems =
        template ? templateProblems(conflist, spec.getNodeSlices() != null) : List.of();
    // A template is checked as rendered for a node that has every value, and the first slice.
    ObjectNode checked =
        problems.isEmpty() && template ? sample(conflist, spec.getNodeSlices()) : conflist;
    if (problems.isEmpty()) {
      problems = ConfigValidator.validate(checked);
    }
    List<ConfigProblem> refused = new ArrayList<>(notForAppended(spec));
    problems.stream().map(p -> underSpec(p, spec)).forEach(refused::add);
    if (!refused.isEmpty()) {
      return new Rendering.Refused(ConditionReason.INVALID_CONFIGURATION, refused);
    }
    NetworkConfigList list = NetworkConfigList.fromJson(checked);
    byte[] content = template ? CanonicalJson.render(conflist) : list.render();
    int priority = spec.getPriority() == null ? CniNetworkDefaults.PRIORITY : spec.getPriority();
    String fileName = String.format("%02d-%s.conflist", priority, list.name());
    if (fileName.getBytes(StandardCharsets.UTF_8).length > MAX_FILE_NAME_BYTES) {
      return new Rendering.Refused(
          ConditionReason.INVALID_CONFIGURATION,
          List.of(
              new ConfigProblem(
                  nameField(spec),
                  Rule.FILE_NAME_LENGTH,
                  "the file name \""
                      + fileName
                      + "\" would be longer than 255 bytes"
                      + (spec.isAppended() ? "" : "; use a shorter spec.networkName"))));
    }
    // spec.appendAs is not part of the revision (AcceptedRevision.identity): DesiredNodeSpec reads
    // it from the spec.
    RenderedConfig rendered =
        new RenderedConfig()
            .setNetworkName(list.name())
            .setAppendTo(spec.getAppendTo())
            .setCniVersion(SpecVersion.of(list.cniVersion()))
            .setNodeSelector(spec.getNodeSelector())
            .setFileName(fileName)
            .setSha256(
                AcceptedRevision.identity(
                    new String(content, StandardCharsets.UTF_8),
                    spec.getNodeSlices(),
                    spec.getAppendTo()))
            .setContent(new String(content, StandardCharsets.UTF_8))
            .setPluginBinaries(list.pluginBinaries())
            .setGeneration(network.getMetadata().getGeneration())
            .setNodeSlices(spec.getNodeSlices());
    return new Rendering.Accepted(rendered);
  }

  /**
   * The problems of a template's placeholders; a tree too deep to walk is left to the validator,
   * which refuses it by its depth.
   */
  private static List<ConfigProblem> templateProblems(ObjectNode conflist, boolean slices) {
    List<ConfigProblem> depth =
        ConfigValidator.validate(conflist).stream()
            .filter(p -> p.rule() == ConflistRule.NESTING_DEPTH)
            .toList();
    return depth.isEmpty() ? NodeTemplate.problems(conflist, slices) : depth;
  }

  private static ObjectNode sample(ObjectNode template, NodeSlices slices) {
    NodeTemplate.Result result =
        NodeTemplate.render(template, NodeValues.SAMPLE, SliceOfNode.sample(slices));
    if (result instanceof NodeTemplate.Result.Rendered r) {
      return r.conflist();
    }
    throw new IllegalStateException("the sample node lacks a value: " + result);
  }

  /** The configuration list as the spec declares it, keys in the spec's order. */
  static ObjectNode conflist(CniNetwork network) {
    CniNetworkSpec spec = network.getSpec();
    ObjectNode list = JsonNodeFactory.instance.objectNode();
    SpecVersion version =
        spec.getCniVersion() == null ? CniNetworkDefaults.CNI_VERSION : spec.getCniVersion();
    list.put("cniVersion", version.text());
    if (spec.getCniVersions() != null && !spec.getCniVersions().isEmpty()) {
      ArrayNode versions = list.putArray("cniVersions");
      spec.getCniVersions().forEach(v -> versions.add(v.text()));
    }
    list.put("name", conflistName(network));
    if (spec.getDisableCheck() != null) {
      list.put("disableCheck", spec.getDisableCheck());
    }
    // An appended network's disableGC is refused (notForAppended), not validated a second time.
    if (spec.getDisableGC() != null && !spec.isAppended()) {
      list.put("disableGC", spec.getDisableGC());
    }
    ArrayNode plugins = list.putArray("plugins");
    if (spec.getPlugins() != null) {
      // Not copied: validation only reads, and a copy of a too-deep tree would overflow the
      // stack before the depth rule could refuse it. NetworkConfigList copies once it is valid.
      spec.getPlugins().forEach(plugins::add);
    }
    return list;
  }

  /**
   * The configuration list's "name": for an appended network spec.appendTo, the network its plugins
   * join, so that two CniNetworks appending to one network clash on its name ({@link
   * dev.cnioperator.operator.placement.NodePlacement}); else the network's own name.
   */
  static String conflistName(CniNetwork network) {
    String appendTo = network.getSpec() == null ? null : network.getSpec().getAppendTo();
    return appendTo != null ? appendTo : network.networkName();
  }

  /** The CniNetwork field the configuration list's "name" comes from ({@link #conflistName}). */
  private static String nameField(CniNetworkSpec spec) {
    if (spec.isAppended()) {
      return "spec.appendTo";
    }
    return spec.getNetworkName() == null ? "metadata.name" : "spec.networkName";
  }

  /**
   * The fields an appended network sets that belong to the whole list it appends to, the other
   * product's: disableGC. Not spec.ipamCleanup.enabled, though the agent never cleans up an
   * appended network's attachments: the API server fills in true for every spec that leaves it out,
   * so a true written on purpose cannot be told from the default; {@link
   * dev.cnioperator.operator.node.DesiredNodeSpec} turns cleanup off for the node instead.
   */
  private static List<ConfigProblem> notForAppended(CniNetworkSpec spec) {
    if (!spec.isAppended() || spec.getDisableGC() == null) {
      return List.of();
    }
    return List.of(
        new ConfigProblem(
            "spec.disableGC",
            Rule.NOT_FOR_APPENDED,
            "disableGC is a field of a whole configuration list, and spec.appendTo appends plugins"
                + " to another product's list, whose disableGC is its own; remove spec.disableGC"));
  }

  /** A problem of the configuration list, named by the CniNetwork field it came from. */
  private static ConfigProblem underSpec(ConfigProblem p, CniNetworkSpec spec) {
    String path = p.path();
    String field;
    if (path.isEmpty()) {
      field = "spec";
    } else if (path.equals("name")) {
      field = nameField(spec);
    } else {
      field = "spec." + path;
    }
    return new ConfigProblem(field, p.rule(), p.message());
  }
}
