package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;

/**
 * A plugin's error output (SPEC-1.1.0.md, Section 5 "Error"): the code, a short {@code msg} and
 * longer {@code details} ("" when absent). Codes 1-99 are the spec's, 100+ the plugin's own.
 */
public record ErrorResult(int code, String msg, String details) {

  public ErrorResult {
    msg = msg == null ? "" : msg;
    details = details == null ? "" : details;
  }

  /** The well-known code this is, if it is one. */
  public java.util.Optional<CniErrorCode> wellKnownCode() {
    return CniErrorCode.of(code);
  }

  /** The same triple as an exception, for callers that do not build their own subclass. */
  public CniException toException() {
    return new CniException(code, msg, details);
  }

  /** The error a runtime or a test plugin prints, in the wire shape of {@code cniVersion}. */
  public ObjectNode toJson(CniVersion cniVersion) {
    ObjectNode out = ResultJson.newObject();
    out.put("cniVersion", cniVersion.toString());
    out.put("code", code);
    out.put("msg", msg);
    if (!details.isEmpty()) {
      out.put("details", details);
    }
    return out;
  }
}
