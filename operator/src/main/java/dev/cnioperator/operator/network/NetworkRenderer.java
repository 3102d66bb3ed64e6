package dev.cnioperator.operator.network;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkDefaults;
import dev.cnioperator.api.v1alpha1.CniNetworkSpec;
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
import java.util.List;

/**
 * Turns a CniNetwork spec into the configuration list nodes get (deterministic bytes and sha256),
 * or into the list of problems that refuse it, each named by its field under "spec.".
 */
public final class NetworkRenderer {

  /** Linux NAME_MAX. */
  private static final int MAX_FILE_NAME_BYTES = 255;

  /** The rule this class checks beyond the configuration list's own. */
  private enum Rule implements ConfigRule {
    FILE_NAME_LENGTH;

    @Override
    public String id() {
      return "file-name-length";
    }
  }

  /** Validates and renders {@code network}'s current spec. */
  public Rendering render(CniNetwork network) {
    CniNetworkSpec spec = network.getSpec();
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
    if (!problems.isEmpty()) {
      return new Rendering.Refused(
          ConditionReason.INVALID_CONFIGURATION,
          problems.stream().map(p -> underSpec(p, spec)).toList());
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
                  spec.getNetworkName() == null ? "metadata.name" : "spec.networkName",
                  Rule.FILE_NAME_LENGTH,
                  "the file name \""
                      + fileName
                      + "\" would be longer than 255 bytes; use a shorter spec.networkName")));
    }
    RenderedConfig rendered =
        new RenderedConfig()
            .setNetworkName(list.name())
            .setCniVersion(SpecVersion.of(list.cniVersion()))
            .setNodeSelector(spec.getNodeSelector())
            .setFileName(fileName)
            .setSha256(
                AcceptedRevision.identity(
                    new String(content, StandardCharsets.UTF_8), spec.getNodeSlices()))
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
    list.put("name", network.networkName());
    if (spec.getDisableCheck() != null) {
      list.put("disableCheck", spec.getDisableCheck());
    }
    if (spec.getDisableGC() != null) {
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

  /** A problem of the configuration list, named by the CniNetwork field it came from. */
  private static ConfigProblem underSpec(ConfigProblem p, CniNetworkSpec spec) {
    String path = p.path();
    String field;
    if (path.isEmpty()) {
      field = "spec";
    } else if (path.equals("name")) {
      field = spec.getNetworkName() == null ? "metadata.name" : "spec.networkName";
    } else {
      field = "spec." + path;
    }
    return new ConfigProblem(field, p.rule(), p.message());
  }
}
