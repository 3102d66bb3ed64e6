package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.CniException;
import java.util.Optional;

/**
 * Decodes the error JSON a plugin prints on stdout when it exits non-zero. Empty when stdout holds
 * no such object, so the caller can report the raw output and stderr instead (libcni's "netplugin
 * failed but error parsing its diagnostic message").
 */
public final class PluginErrors {

  private PluginErrors() {}

  /**
   * The {code, msg, details} in {@code stdout}: an object with an unsigned integer {@code code}
   * and/or a string {@code msg} (a missing code reads as 0, libcni's "unknown"), and an optional
   * string {@code details}. Anything else, including wrongly typed fields, gives empty.
   */
  public static Optional<ErrorResult> decode(byte[] stdout) {
    if (stdout == null || stdout.length == 0) {
      return Optional.empty();
    }
    try {
      JsonNode node = ResultJson.read(stdout, "plugin error output");
      if (!node.isObject()) {
        return Optional.empty();
      }
      JsonFields fields = JsonFields.of(node, "", "decoding a plugin error");
      if (!fields.has("code") && !fields.has("msg")) {
        return Optional.empty();
      }
      int code = fields.integer("code").orElse(0);
      if (code < 0) {
        return Optional.empty();
      }
      return Optional.of(
          new ErrorResult(
              code, fields.string("msg").orElse(""), fields.string("details").orElse("")));
    } catch (CniException notAnError) {
      return Optional.empty();
    }
  }
}
