package dev.cnioperator.cni;

import java.util.Optional;

/**
 * The well-known error codes of SPEC-1.1.0.md, Section 6 ("Error"). Codes 0-99 are reserved for the
 * spec; 100 and above belong to plugins, and 900-999 are used by this runtime for its own failures
 * (as libcni uses 999 for "plugin output was not valid JSON").
 */
public enum CniErrorCode {
  INCOMPATIBLE_VERSION(1, "Incompatible CNI version"),
  UNSUPPORTED_FIELD(2, "Unsupported field in network configuration"),
  UNKNOWN_CONTAINER(3, "Container unknown or does not exist"),
  INVALID_ENVIRONMENT(4, "Invalid necessary environment variables"),
  IO_FAILURE(5, "I/O failure"),
  DECODING_FAILURE(6, "Failed to decode content"),
  INVALID_NETWORK_CONFIG(7, "Invalid network config"),
  TRY_AGAIN_LATER(11, "Try again later"),
  PLUGIN_NOT_AVAILABLE(50, "The plugin is not available"),
  LIMITED_CONNECTIVITY(
      51, "The plugin is not available and existing containers may have limited" + " connectivity"),
  // This runtime's own codes (outside the spec's and plugins' ranges):
  PLUGIN_NOT_FOUND(901, "Plugin binary not found on CNI_PATH"),
  PLUGIN_TIMEOUT(902, "Plugin did not finish in time and was killed"),
  INVALID_PLUGIN_OUTPUT(999, "Plugin output was not a valid CNI result or error");

  private final int code;
  private final String description;

  CniErrorCode(int code, String description) {
    this.code = code;
    this.description = description;
  }

  public int code() {
    return code;
  }

  public String description() {
    return description;
  }

  public static Optional<CniErrorCode> of(int code) {
    for (CniErrorCode c : values()) {
      if (c.code == code) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }
}
