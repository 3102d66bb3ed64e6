package dev.cnioperator.cni.exec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The per-attachment parameters of SPEC-1.1.0.md Section 3 (libcni's {@code RuntimeConf}):
 * container id, network namespace, interface name, generic arguments ({@code CNI_ARGS}) and
 * capability arguments. Validated on construction as libcni validates them, so a bad value fails
 * before any plugin runs, with code 4 naming the variable.
 */
public record Attachment(
    String containerId,
    String netns,
    String ifName,
    List<CniArg> cniArgs,
    Map<String, JsonNode> capabilityArgs) {

  /** libcni's {@code cniValidNameChars}: the container id (and network name) pattern. */
  public static final Pattern CONTAINER_ID = Pattern.compile("^[a-zA-Z0-9][a-zA-Z0-9_.\\-]*$");

  /** Linux's IFNAMSIZ less the terminating NUL. */
  public static final int MAX_IFNAME_BYTES = 15;

  public Attachment {
    validateContainerId(containerId);
    validateIfName(ifName);
    netns = netns == null ? "" : netns;
    cniArgs = List.copyOf(cniArgs == null ? List.of() : cniArgs);
    capabilityArgs =
        Collections.unmodifiableMap(
            new LinkedHashMap<>(capabilityArgs == null ? Map.of() : capabilityArgs));
  }

  /** An attachment with no generic or capability arguments. */
  public static Attachment of(String containerId, String netns, String ifName) {
    return new Attachment(containerId, netns, ifName, List.of(), Map.of());
  }

  public Attachment withCniArgs(List<CniArg> args) {
    return new Attachment(containerId, netns, ifName, args, capabilityArgs);
  }

  /** The {@code CNI_ARGS} value. */
  public String cniArgsValue() {
    return CniArg.format(cniArgs);
  }

  static void validateContainerId(String containerId) {
    if (containerId == null || containerId.isEmpty()) {
      throw invalid("CNI_CONTAINERID", "container id is empty", "");
    }
    if (!CONTAINER_ID.matcher(containerId).matches()) {
      throw invalid(
          "CNI_CONTAINERID",
          "container id \"" + containerId + "\" has invalid characters",
          "must match " + CONTAINER_ID.pattern());
    }
  }

  /** libcni's {@code ValidateInterfaceName}, counting bytes as the kernel does. */
  static void validateIfName(String ifName) {
    if (ifName == null || ifName.isEmpty()) {
      throw invalid("CNI_IFNAME", "interface name is empty", "");
    }
    if (ifName.getBytes(StandardCharsets.UTF_8).length > MAX_IFNAME_BYTES) {
      throw invalid(
          "CNI_IFNAME",
          "interface name \"" + ifName + "\" is too long",
          "at most " + MAX_IFNAME_BYTES + " bytes");
    }
    if (ifName.equals(".") || ifName.equals("..")) {
      throw invalid("CNI_IFNAME", "interface name must not be \"" + ifName + "\"", "");
    }
    for (int i = 0; i < ifName.length(); ) {
      int cp = ifName.codePointAt(i);
      if (cp == '/' || cp == ':' || Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
        throw invalid(
            "CNI_IFNAME", "interface name \"" + ifName + "\" contains '/', ':' or whitespace", "");
      }
      i += Character.charCount(cp);
    }
  }

  private static CniException invalid(String variable, String msg, String details) {
    return new CniException(CniErrorCode.INVALID_ENVIRONMENT, variable + ": " + msg, details);
  }
}
