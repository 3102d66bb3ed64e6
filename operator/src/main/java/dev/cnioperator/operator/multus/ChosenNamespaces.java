package dev.cnioperator.operator.multus;

import dev.cnioperator.api.v1alpha1.MultusAttachment;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.operator.placement.LabelSelectors;
import io.fabric8.kubernetes.api.model.Namespace;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The namespaces a Multus network's NetworkAttachmentDefinitions belong in: those named in {@code
 * namespaces} and those {@code namespaceSelector} matches, among the namespaces that exist and are
 * not being deleted.
 *
 * @param namespaces where a definition belongs now, sorted
 * @param waiting named namespaces that do not exist (or are being deleted): they get one when they
 *     appear
 * @param invalid named entries that cannot be a namespace's name
 * @param selectorProblems why {@code namespaceSelector} is refused; while it is, the definitions in
 *     namespaces it no longer names are kept ({@link #keepsOthers()})
 */
public record ChosenNamespaces(
    SortedSet<String> namespaces,
    List<String> waiting,
    List<String> invalid,
    List<ConfigProblem> selectorProblems) {

  static final String NAMES_FIELD = "spec.attachment.multus.namespaces";
  static final String SELECTOR_FIELD = "spec.attachment.multus.namespaceSelector";

  /** A namespace name is a DNS label (RFC 1123). */
  private static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");

  public static ChosenNamespaces of(MultusAttachment multus, Collection<Namespace> existing) {
    Map<String, Namespace> byName = new TreeMap<>();
    existing.forEach(n -> byName.put(n.getMetadata().getName(), n));
    SortedSet<String> chosen = new TreeSet<>();
    List<String> waiting = new ArrayList<>();
    List<String> invalid = new ArrayList<>();
    for (String name :
        new TreeSet<>(multus.getNamespaces() == null ? List.of() : multus.getNamespaces())) {
      Namespace namespace = byName.get(name);
      if (!DNS_LABEL.matcher(name).matches()) {
        invalid.add(name);
      } else if (namespace == null || terminating(namespace)) {
        waiting.add(name);
      } else {
        chosen.add(name);
      }
    }
    List<ConfigProblem> problems =
        LabelSelectors.validate(multus.getNamespaceSelector(), SELECTOR_FIELD);
    if (multus.getNamespaceSelector() != null && problems.isEmpty()) {
      byName.values().stream()
          .filter(n -> !terminating(n))
          .filter(
              n ->
                  LabelSelectors.matches(
                      multus.getNamespaceSelector(), n.getMetadata().getLabels()))
          .forEach(n -> chosen.add(n.getMetadata().getName()));
    }
    return new ChosenNamespaces(chosen, List.copyOf(waiting), List.copyOf(invalid), problems);
  }

  /**
   * Whether definitions outside {@link #namespaces()} stay: while the selector is refused, which
   * namespaces it means is unknown, and an invalid edit must not take the network from pods.
   */
  boolean keepsOthers() {
    return !selectorProblems.isEmpty();
  }

  private static boolean terminating(Namespace namespace) {
    return namespace.getMetadata().getDeletionTimestamp() != null;
  }
}
