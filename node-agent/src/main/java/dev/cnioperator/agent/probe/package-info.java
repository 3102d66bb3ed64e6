/**
 * The proof a node gives of a new revision of a network before the operator counts it as done: a
 * probe attachment in a network namespace of the agent's own (ADD, CHECK, DEL), STATUS on 1.1.0,
 * and no live attachment that was healthy turning unhealthy. Nothing of a probe outlives it: a
 * probe killed halfway is swept the next time the agent looks at that network.
 */
package dev.cnioperator.agent.probe;
