package dev.cnioperator.operator.network;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.runtime.text.CappedList;
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

    /** The problems as "path: message" lines, the first five ({@link CappedList#lines}). */
    public String message() {
      return CappedList.lines(problems.stream().map(p -> p.path() + ": " + p.message()).toList());
    }
  }
}
