package dev.cnioperator.agent.host;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Plugin entries the agent appended to another product's conflist for a network declared with
 * {@code spec.appendTo}: the entries are the agent's, the file is not.
 *
 * @param fileName the file in the runtime's configuration directory they were appended to
 * @param entries the appended entries, a JSON array, as the agent wrote them
 * @param sha256 the file as the agent last wrote it (or is about to: saved before the rename)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AppendedChain(String fileName, String entries, String sha256) {}
