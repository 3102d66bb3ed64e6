package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.util.List;

/**
 * Reads results and VERSION answers from plugin output or stored JSON, with libcni's version rules:
 * a result is read in its own {@code cniVersion}; when it has none, libcni's exec path assumes the
 * request's version and its cache path assumes 0.1.0.
 */
public final class Results {

  private Results() {}

  /**
   * A plugin's stdout after a successful ADD, as a result.
   *
   * @param expected the {@code cniVersion} of the request, assumed when the result states none (as
   *     libcni's {@code invoke} does); null to assume 0.1.0
   * @throws CniException INVALID_PLUGIN_OUTPUT when the bytes are not one JSON object,
   *     DECODING_FAILURE naming the field when a field is malformed, INCOMPATIBLE_VERSION when the
   *     result's version is unknown
   */
  public static Result parse(byte[] stdout, CniVersion expected) {
    JsonNode node = ResultJson.read(stdout, "plugin output");
    if (!node.isObject() && !node.isNull()) {
      throw new CniException(
          CniErrorCode.INVALID_PLUGIN_OUTPUT,
          "plugin output is not a JSON object",
          "output: " + ResultJson.excerpt(stdout));
    }
    return parse(node, expected);
  }

  /**
   * A result held as JSON (a {@code prevResult}, a cache entry's {@code result}).
   *
   * @param expected the version assumed when the result states none; null means 0.1.0 (libcni's
   *     rule for results read without a request, such as cached ones)
   */
  public static Result parse(JsonNode json, CniVersion expected) {
    // libcni reads a "null" result as an empty one.
    ObjectNode root =
        json == null || json.isNull()
            ? ResultJson.newObject()
            : JsonFields.of(json, "", "decoding a CNI result").objectNode();
    JsonNode declared = root.get("cniVersion");
    boolean stated =
        declared != null
            && !declared.isNull()
            && !(declared.isTextual() && declared.textValue().isEmpty());
    if (!stated) {
      CniVersion assumed = expected == null ? CniVersion.V0_1_0 : expected;
      root = root.deepCopy();
      root.put("cniVersion", assumed.toString());
      return ResultDecoder.decode(root, assumed);
    }
    return ResultDecoder.decode(root, declaredVersion(declared));
  }

  /** A result held as JSON, read in its own version (0.1.0 when it states none). */
  public static Result parse(JsonNode json) {
    return parse(json, null);
  }

  /**
   * A plugin's VERSION stdout. As libcni's {@code PluginDecoder}: {@code cniVersion} is required,
   * and a plugin that answers 0.2.0 without {@code supportedVersions} supports 0.1.0 and 0.2.0.
   */
  public static VersionResult parseVersion(byte[] stdout) {
    JsonNode node = ResultJson.read(stdout, "VERSION output");
    if (!node.isObject()) {
      throw new CniException(
          CniErrorCode.INVALID_PLUGIN_OUTPUT,
          "VERSION output is not a JSON object",
          "output: " + ResultJson.excerpt(stdout));
    }
    JsonFields fields = JsonFields.of(node, "", "decoding a plugin's VERSION output");
    String declared = fields.string("cniVersion").orElse("");
    if (declared.isEmpty()) {
      throw fields.fail("cniVersion", "is missing");
    }
    CniVersion cniVersion =
        CniVersion.parse(declared, CniVersion.Strictness.LIBCNI)
            .orElseThrow(() -> fields.fail("cniVersion", "is not a version: \"" + declared + "\""));
    List<String> supported = fields.strings("supportedVersions");
    if (supported.isEmpty()) {
      if (!declared.equals("0.2.0")) {
        throw fields.fail("supportedVersions", "is missing");
      }
      supported = VersionResult.LEGACY_VERSIONS;
    }
    return new VersionResult(cniVersion, supported);
  }

  private static CniVersion declaredVersion(JsonNode declared) {
    if (!declared.isTextual()) {
      throw JsonFields.error(
          "cniVersion",
          "must be a string, not " + JsonFields.describe(declared),
          "decoding a CNI result");
    }
    String text = declared.textValue();
    return CniVersion.parse(text)
        .orElseThrow(
            () ->
                new CniException(
                    CniErrorCode.INCOMPATIBLE_VERSION,
                    "unsupported CNI result version \"" + text + "\"",
                    "cniVersion must be one of " + CniVersion.KNOWN));
  }
}
