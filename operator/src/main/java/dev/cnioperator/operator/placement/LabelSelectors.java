package dev.cnioperator.operator.placement;

import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.cni.config.ConfigRule;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Kubernetes label selector semantics over Node labels: validation and matching. */
public final class LabelSelectors {

  // A label key: optional DNS-subdomain prefix and '/', then a name of at most 63 characters.
  private static final Pattern NAME =
      Pattern.compile("^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");
  private static final Pattern PREFIX =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern VALUE =
      Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$");

  /** The rules a selector can break. */
  public enum Rule implements ConfigRule {
    LABEL_KEY("label-key"),
    LABEL_VALUE("label-value"),
    SELECTOR_OPERATOR("selector-operator"),
    SELECTOR_VALUES("selector-values");

    private final String id;

    Rule(String id) {
      this.id = id;
    }

    @Override
    public String id() {
      return id;
    }
  }

  private LabelSelectors() {}

  /** Every problem of {@code selector}, with paths under {@code path}; empty when it is valid. */
  public static List<ConfigProblem> validate(LabelSelector selector, String path) {
    List<ConfigProblem> problems = new ArrayList<>();
    if (selector == null) {
      return problems;
    }
    Map<String, String> labels = selector.getMatchLabels();
    if (labels != null) {
      labels.forEach(
          (key, value) -> {
            checkKey(key, path + ".matchLabels", problems);
            checkValue(value, path + ".matchLabels[" + key + "]", problems);
          });
    }
    List<LabelSelectorRequirement> expressions = selector.getMatchExpressions();
    for (int i = 0; expressions != null && i < expressions.size(); i++) {
      checkRequirement(expressions.get(i), path + ".matchExpressions[" + i + "]", problems);
    }
    return problems;
  }

  /** Whether {@code labels} satisfy {@code selector}; a null or empty selector matches all. */
  public static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return true;
    }
    Map<String, String> have = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(have.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        if (!satisfies(r, have)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean satisfies(LabelSelectorRequirement r, Map<String, String> labels) {
    String value = labels.get(r.getKey());
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    return switch (r.getOperator()) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> labels.containsKey(r.getKey());
      case "DoesNotExist" -> !labels.containsKey(r.getKey());
      default -> false; // refused by validate(); never selects a node
    };
  }

  private static void checkRequirement(
      LabelSelectorRequirement r, String path, List<ConfigProblem> problems) {
    checkKey(r.getKey(), path + ".key", problems);
    String operator = r.getOperator();
    int valueCount = r.getValues() == null ? 0 : r.getValues().size();
    switch (operator == null ? "" : operator) {
      case "In", "NotIn" -> {
        if (valueCount == 0) {
          problems.add(
              new ConfigProblem(
                  path + ".values",
                  Rule.SELECTOR_VALUES,
                  "operator " + operator + " needs at least one value"));
        }
      }
      case "Exists", "DoesNotExist" -> {
        if (valueCount != 0) {
          problems.add(
              new ConfigProblem(
                  path + ".values",
                  Rule.SELECTOR_VALUES,
                  "operator " + operator + " takes no values"));
        }
      }
      default ->
          problems.add(
              new ConfigProblem(
                  path + ".operator",
                  Rule.SELECTOR_OPERATOR,
                  "operator \"" + operator + "\" is not one of In, NotIn, Exists, DoesNotExist"));
    }
    if (r.getValues() != null) {
      for (String v : r.getValues()) {
        checkValue(v, path + ".values", problems);
      }
    }
  }

  private static void checkKey(String key, String path, List<ConfigProblem> problems) {
    String name = key == null ? "" : key;
    String prefix = null;
    int slash = name.indexOf('/');
    if (slash >= 0) {
      prefix = name.substring(0, slash);
      name = name.substring(slash + 1);
    }
    boolean ok =
        NAME.matcher(name).matches()
            && (prefix == null || (prefix.length() <= 253 && PREFIX.matcher(prefix).matches()));
    if (!ok) {
      problems.add(
          new ConfigProblem(
              path,
              Rule.LABEL_KEY,
              "label key \""
                  + key
                  + "\" must be an optional DNS-subdomain prefix and '/', then 1-63 letters,"
                  + " digits, '-', '_' or '.', starting and ending with a letter or digit"));
    }
  }

  private static void checkValue(String value, String path, List<ConfigProblem> problems) {
    if (value == null || !VALUE.matcher(value).matches()) {
      problems.add(
          new ConfigProblem(
              path,
              Rule.LABEL_VALUE,
              "label value \""
                  + value
                  + "\" must be at most 63 letters, digits, '-', '_' or '.', starting and ending"
                  + " with a letter or digit"));
    }
  }
}
