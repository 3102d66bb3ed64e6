package dev.cnioperator.agent;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code cni-node-agent} command line: {@code run} starts the agent, {@code cni} is a
 * cnitool-compatible tool.
 */
@Command(
    name = "cni-node-agent",
    mixinStandardHelpOptions = true,
    subcommands = {RunCommand.class, CniCommand.class},
    description =
        "Makes this node match its CniNode: conflists, plugin binaries, CHECK, IPAM cleanup.")
public final class Main {

  public static void main(String[] args) {
    CommandLine line = new CommandLine(new Main());
    // Everything after "cni" belongs to the tool, options included.
    line.getSubcommands()
        .get("cni")
        .setUnmatchedOptionsArePositionalParams(true)
        .setStopAtPositional(true);
    System.exit(line.execute(args));
  }
}
