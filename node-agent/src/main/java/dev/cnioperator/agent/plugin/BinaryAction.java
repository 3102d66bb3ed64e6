package dev.cnioperator.agent.plugin;

import dev.cnioperator.agent.host.WriteReason;

/** One step {@link PluginBinarySync} decided for a plugin binary in the bin dir. */
public sealed interface BinaryAction {

  String name();

  /**
   * Put the binary in place: copied from the bundled dir when {@code url} is null, downloaded and
   * verified against {@code sha256} otherwise.
   */
  record Install(String name, String url, String sha256, WriteReason reason)
      implements BinaryAction {}

  /** The binary on disk serves as is; {@code owner} says whose it is. */
  record Keep(String name, Owner owner) implements BinaryAction {}

  /** Needed but neither on disk nor available from any source. */
  record Unavailable(String name, String message) implements BinaryAction {}

  /** Who put a binary in the bin dir, as the CniNode status reports it. */
  enum Owner {
    agent,
    external
  }
}
