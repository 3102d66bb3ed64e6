package dev.cnioperator.operator.multus;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.runtime.text.CappedList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * What holds of a Multus network's NetworkAttachmentDefinitions, as its AttachmentDefinitions
 * condition says it: True (reason {@code Created}) when every chosen namespace has the network's
 * own, False with {@code Conflict}, {@code InvalidNamespaces}, {@code Failed}, {@code NotInstalled}
 * or {@code NotAccepted} otherwise.
 *
 * @param namespaces the namespaces that hold the network's own definition, sorted
 * @param recheckAfter when to look again without an event: nothing watches the definitions
 */
public record AttachmentReport(
    boolean ready,
    ConditionReason reason,
    String message,
    List<String> namespaces,
    Optional<Duration> recheckAfter) {

  /**
   * How soon a definition deleted or edited by hand is put back, and one that was in the way, once
   * removed, replaced.
   */
  static final Duration RECHECK = Duration.ofSeconds(60);

  /** How soon to look again after a failure, or for the CRD to appear. */
  static final Duration RETRY = Duration.ofSeconds(10);

  static AttachmentReport notInstalled() {
    return new AttachmentReport(
        false,
        ConditionReason.NOT_INSTALLED,
        "the NetworkAttachmentDefinition CRD ("
            + AttachmentDefinition.CRD_NAME
            + ") is not installed: install Multus; until then no pod can ask for this network",
        List.of(),
        Optional.of(RETRY));
  }

  static AttachmentReport notAccepted() {
    return new AttachmentReport(
        false,
        ConditionReason.NOT_ACCEPTED,
        "no revision of this network was ever accepted (see Accepted), so no"
            + " NetworkAttachmentDefinition is created",
        List.of(),
        Optional.empty());
  }

  static AttachmentReport failed(String what) {
    return new AttachmentReport(false, ConditionReason.FAILED, what, List.of(), Optional.of(RETRY));
  }

  /**
   * The report after acting on {@code plan}: what is wrong first, then where the definitions are.
   *
   * @param held the namespaces that hold the network's own definition now
   * @param failures what went wrong, one line each ("namespace/name: create: error")
   */
  static AttachmentReport of(
      String name,
      ChosenNamespaces chosen,
      AttachmentDefinitionPlan plan,
      Collection<String> held,
      List<String> failures) {
    ConditionReason reason =
        !plan.conflicts().isEmpty()
            ? ConditionReason.CONFLICT
            : !chosen.invalid().isEmpty() || chosen.keepsOthers()
                ? ConditionReason.INVALID_NAMESPACES
                : !failures.isEmpty() ? ConditionReason.FAILED : ConditionReason.CREATED;
    List<String> parts = problems(chosen, plan, failures);
    parts.add(
        "NetworkAttachmentDefinition "
            + name
            + " is in "
            + held.size()
            + (held.size() == 1 ? " namespace" : " namespaces")
            + (held.isEmpty() && chosen.namespaces().isEmpty() && chosen.waiting().isEmpty()
                ? " (spec.attachment.multus chooses none)"
                : ""));
    if (!chosen.waiting().isEmpty()) {
      parts.add(
          "waiting for "
              + (chosen.waiting().size() == 1 ? "namespace " : "namespaces ")
              + CappedList.names(chosen.waiting())
              + " to exist");
    }
    return new AttachmentReport(
        reason == ConditionReason.CREATED,
        reason,
        String.join("; ", parts),
        held.stream().sorted().toList(),
        Optional.of(failures.isEmpty() ? RECHECK : RETRY));
  }

  /** Each thing that keeps the definitions from being all in place, worst first. */
  private static List<String> problems(
      ChosenNamespaces chosen, AttachmentDefinitionPlan plan, List<String> failures) {
    List<String> problems = new ArrayList<>();
    List<String> conflicts = plan.conflicts().stream().map(AttachmentDefinition::id).toList();
    if (!conflicts.isEmpty()) {
      boolean one = conflicts.size() == 1;
      problems.add(
          "NetworkAttachmentDefinition "
              + CappedList.names(conflicts)
              + (one ? " exists and was" : " exist and were")
              + " not created by this network (no ownerReference to it): "
              + (one ? "it is" : "they are")
              + " left alone, and this network has no definition of its own there");
    }
    if (!chosen.invalid().isEmpty()) {
      problems.add(
          ChosenNamespaces.NAMES_FIELD
              + ": "
              + CappedList.names(chosen.invalid().stream().map(n -> "\"" + n + "\"").toList())
              + " cannot be a namespace's name (a DNS label: at most 63 lower-case letters, digits"
              + " and '-', starting and ending with a letter or digit)");
    }
    for (ConfigProblem p : chosen.selectorProblems()) {
      problems.add(p.path() + ": " + p.message());
    }
    if (chosen.keepsOthers()) {
      problems.add("the definitions in namespaces it chose before are kept until it is fixed");
    }
    if (!failures.isEmpty()) {
      problems.add(CappedList.names(failures));
    }
    return problems;
  }

  AttachmentReport recheckingAfter(Duration remaining) {
    return new AttachmentReport(ready, reason, message, namespaces, Optional.of(remaining));
  }
}
