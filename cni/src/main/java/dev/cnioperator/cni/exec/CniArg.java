package dev.cnioperator.cni.exec;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One {@code CNI_ARGS} pair ({@code K8S_POD_NAME=web-0}); the variable is these pairs joined with
 * ';' (SPEC-1.1.0.md Section 2, CONVENTIONS.md).
 */
public record CniArg(String key, String value) {

  public CniArg {
    if (key == null || key.isEmpty() || key.contains("=") || key.contains(";")) {
      throw invalid("key \"" + key + "\" must be non-empty without '=' or ';'");
    }
    if (value == null || value.contains(";")) {
      throw invalid("value of " + key + " must not contain ';'");
    }
  }

  /**
   * Parses a {@code CNI_ARGS} value the way cnitool does: pairs separated by ';', each exactly one
   * '=' with a non-empty key and value. Empty text gives no pairs.
   */
  public static List<CniArg> parse(String text) {
    List<CniArg> args = new ArrayList<>();
    if (text == null || text.isEmpty()) {
      return args;
    }
    for (String pair : text.split(";", -1)) {
      String[] kv = pair.split("=", -1);
      if (kv.length != 2 || kv[0].isEmpty() || kv[1].isEmpty()) {
        throw invalid("pair \"" + pair + "\" is not KEY=VALUE");
      }
      args.add(new CniArg(kv[0], kv[1]));
    }
    return args;
  }

  /** The {@code CNI_ARGS} value for these pairs, in order. */
  public static String format(List<CniArg> args) {
    return args.stream().map(a -> a.key + "=" + a.value).collect(Collectors.joining(";"));
  }

  private static CniException invalid(String what) {
    return new CniException(CniErrorCode.INVALID_ENVIRONMENT, "invalid CNI_ARGS: " + what, "");
  }
}
