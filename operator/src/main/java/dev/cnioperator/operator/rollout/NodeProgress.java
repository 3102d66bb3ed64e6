package dev.cnioperator.operator.rollout;

import java.util.Objects;

/**
 * One node the new revision selects, as the operator observes it: which revision its CniNode spec
 * holds, and what its agent reported about the content it applied for that revision.
 */
public record NodeProgress(String node, Holding holding, Proof proof, String message) {

  /** Which revision the node's CniNode spec holds for the network. */
  public enum Holding {
    /** The revision being rolled out. */
    REVISION,
    /** The stable revision. */
    STABLE,
    /** Another revision: one a superseded rollout gave it. */
    OTHER,
    /** Nothing of this network. */
    NOTHING
  }

  /** The agent's word on the content of the revision it holds. */
  public enum Proof {
    /** No report yet for that content. */
    PENDING,
    PASSED,
    FAILED
  }

  public NodeProgress {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(holding, "holding");
    Objects.requireNonNull(proof, "proof");
  }

  public static NodeProgress holding(String node, Holding holding) {
    return new NodeProgress(node, holding, Proof.PENDING, null);
  }

  public static NodeProgress passed(String node) {
    return new NodeProgress(node, Holding.REVISION, Proof.PASSED, null);
  }

  public static NodeProgress failed(String node, String message) {
    return new NodeProgress(node, Holding.REVISION, Proof.FAILED, message);
  }

  boolean holdsRevision() {
    return holding == Holding.REVISION;
  }

  /** Proven: it holds the revision and its agent says the probe of that content passed. */
  boolean proven() {
    return holdsRevision() && proof == Proof.PASSED;
  }

  boolean failedProbe() {
    return holdsRevision() && proof == Proof.FAILED;
  }
}
