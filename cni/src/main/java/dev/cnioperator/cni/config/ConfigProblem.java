package dev.cnioperator.cni.config;

import java.util.Objects;

/**
 * One thing wrong with a network configuration: where ({@code path}, a JSON path such as {@code
 * plugins[1].ipam.type}, empty for the whole document), which rule was broken (its {@link
 * ConfigRule#id() id}, such as {@code reserved-key}, is shown after the message), and a message a
 * person can act on.
 */
public record ConfigProblem(String path, ConfigRule rule, String message) {

  public ConfigProblem {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(message, "message");
  }

  /** The same problem reported under a different path (used to re-root legacy .conf paths). */
  ConfigProblem withPath(String newPath) {
    return new ConfigProblem(newPath, rule, message);
  }

  /** The broken rule's id as people see it. */
  public String ruleId() {
    return rule.id();
  }

  @Override
  public String toString() {
    return (path.isEmpty() ? "(document)" : path) + ": " + message + " [" + rule.id() + "]";
  }
}
