/**
 * Staged rollout of a CniNetwork's new revision: which nodes take it when ({@link RolloutMachine},
 * pure), and which revision one node holds meanwhile ({@link NodeRevisionChoice}). The state lives
 * in the CniNetwork's status.rollout and in the CniNode specs (each names the revision it holds),
 * so a restarted or failed-over operator resumes where the last one stopped.
 */
package dev.cnioperator.operator.rollout;
