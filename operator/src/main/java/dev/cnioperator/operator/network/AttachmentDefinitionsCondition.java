package dev.cnioperator.operator.network;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.reasons.ConditionStamp;
import dev.cnioperator.api.reasons.ConditionType;
import dev.cnioperator.operator.multus.AttachmentReport;
import io.fabric8.kubernetes.api.model.Condition;

/**
 * A Multus network's NetworkAttachmentDefinitions in its status: the AttachmentDefinitions
 * condition, and Ready, which is not True while some chosen namespace lacks the network's
 * definition (pods there cannot ask for it).
 */
final class AttachmentDefinitionsCondition {

  private AttachmentDefinitionsCondition() {}

  /** Ready as the nodes say it, unless some namespace lacks the definition. */
  static Condition ready(ConditionStamp stamp, Condition nodesReady, AttachmentReport report) {
    if (!Conditions.isTrue(nodesReady) || report.ready()) {
      return nodesReady;
    }
    return stamp.set(
        ConditionType.READY,
        false,
        ConditionReason.ATTACHMENT_DEFINITIONS_MISSING,
        "the nodes are ready ("
            + nodesReady.getMessage()
            + "), but pods cannot ask for this network in every namespace: "
            + report.message());
  }

  /** The AttachmentDefinitions condition. */
  static Condition of(ConditionStamp stamp, AttachmentReport report) {
    return stamp.set(
        ConditionType.ATTACHMENT_DEFINITIONS, report.ready(), report.reason(), report.message());
  }
}
