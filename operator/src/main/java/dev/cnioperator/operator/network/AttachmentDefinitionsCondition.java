package dev.cnioperator.operator.network;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.reasons.ConditionType;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.operator.metrics.OperatorMetrics;
import dev.cnioperator.operator.multus.AttachmentReport;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Adds a Multus network's NetworkAttachmentDefinitions to its folded status: the
 * AttachmentDefinitions condition, status.attachmentDefinitions, and Ready, which is not True while
 * some chosen namespace lacks the network's definition (pods there cannot ask for it). Other
 * networks' status is left as folded.
 */
final class AttachmentDefinitionsCondition {

  private AttachmentDefinitionsCondition() {}

  static NetworkStatusFolder.Folded fold(
      NetworkStatusFolder.Folded folded, CniNetwork network, AttachmentReport report, Instant now) {
    CniNetworkStatus status = folded.status();
    long generation = network.getMetadata().getGeneration();
    List<Condition> previous =
        network.getStatus() == null ? List.of() : network.getStatus().getConditions();
    List<Condition> conditions = new ArrayList<>();
    boolean ready = folded.health().ready();
    for (Condition c : status.getConditions()) {
      if (ConditionType.READY.is(c.getType()) && Conditions.isTrue(c) && !report.ready()) {
        ready = false;
        c =
            Conditions.next(
                previous,
                ConditionType.READY,
                false,
                ConditionReason.ATTACHMENT_DEFINITIONS_MISSING,
                "the nodes are ready ("
                    + c.getMessage()
                    + "), but pods cannot ask for this network in every namespace: "
                    + report.message(),
                generation,
                now);
      }
      conditions.add(c);
    }
    conditions.add(
        Conditions.next(
            previous,
            ConditionType.ATTACHMENT_DEFINITIONS,
            report.ready(),
            report.reason(),
            report.message(),
            generation,
            now));
    status.setConditions(conditions);
    status.setAttachmentDefinitions(report.namespaces().isEmpty() ? null : report.namespaces());
    OperatorMetrics.NetworkHealth health = folded.health();
    return new NetworkStatusFolder.Folded(
        status, new OperatorMetrics.NetworkHealth(health.accepted(), ready, health.degraded()));
  }
}
