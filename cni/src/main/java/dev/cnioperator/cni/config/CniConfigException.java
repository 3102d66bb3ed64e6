package dev.cnioperator.cni.config;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A network configuration that cannot be used: malformed JSON ({@link
 * CniErrorCode#DECODING_FAILURE}, code 6) or JSON that breaks the rules of SPEC-1.1.0.md Section 1
 * ({@link CniErrorCode#INVALID_NETWORK_CONFIG}, code 7). Carries every problem found, not just the
 * first, each with its JSON path and rule id.
 */
public class CniConfigException extends CniException {
  private static final long serialVersionUID = 1L;

  /** Not serialized: the problems are also spelled out in {@link #details()}. */
  private final transient List<ConfigProblem> problems;

  private CniConfigException(
      CniErrorCode code, String msg, List<ConfigProblem> problems, Throwable cause) {
    super(code, msg, describe(problems), cause);
    this.problems = List.copyOf(problems);
  }

  /** The configuration from {@code source} (a file name or a short description) broke rules. */
  public static CniConfigException invalid(String source, List<ConfigProblem> problems) {
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an invalid configuration needs at least one problem");
    }
    return new CniConfigException(
        CniErrorCode.INVALID_NETWORK_CONFIG,
        "invalid network configuration in " + source,
        problems,
        null);
  }

  /** The bytes from {@code source} are not a JSON document. */
  public static CniConfigException malformed(String source, String what, Throwable cause) {
    return new CniConfigException(
        CniErrorCode.DECODING_FAILURE,
        "cannot decode network configuration in " + source,
        List.of(new ConfigProblem("", ConflistRule.MALFORMED_JSON, what)),
        cause);
  }

  /** Every problem found, in document order. */
  public List<ConfigProblem> problems() {
    return problems == null ? List.of() : problems;
  }

  private static String describe(List<ConfigProblem> problems) {
    return problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("; "));
  }
}
