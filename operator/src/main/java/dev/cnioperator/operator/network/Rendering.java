package dev.cnioperator.operator.network;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.cni.config.ConfigProblem;
import java.util.List;

/** The outcome of validating and rendering one CniNetwork generation. */
public sealed interface Rendering {

  /** The spec is valid: this is what nodes get. */
  record Accepted(RenderedConfig rendered) implements Rendering {}

  /**
   * The spec is refused for {@code reason} (Accepted's); {@code problems} name each field under
   * "spec." and say what is wrong.
   */
  record Refused(ConditionReason reason, List<ConfigProblem> problems) implements Rendering {

    /** Up to five problems, "path: message" joined with "; ". */
    public String message() {
      StringBuilder text = new StringBuilder();
      problems.stream()
          .limit(5)
          .forEach(
              p ->
                  text.append(text.isEmpty() ? "" : "; ")
                      .append(p.path())
                      .append(": ")
                      .append(p.message()));
      if (problems.size() > 5) {
        text.append("; and ").append(problems.size() - 5).append(" more");
      }
      return text.toString();
    }
  }
}
