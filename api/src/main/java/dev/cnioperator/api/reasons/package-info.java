/**
 * The words the operator and the agent write for people to read and for tools to match: the types
 * and reasons of the conditions in CniNetwork and CniNode status, and the reasons of the Events
 * they record, each written once, here. {@code kubectl describe} shows them, and the chart's
 * alerts, the docs and the end-to-end tests match on them: a constant's wire value never changes.
 */
package dev.cnioperator.api.reasons;
