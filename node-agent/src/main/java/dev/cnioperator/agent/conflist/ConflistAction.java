package dev.cnioperator.agent.conflist;

import dev.cnioperator.agent.host.WriteReason;

/** One step {@link ConflistSync} decided; {@link ConflistApplier} carries it out. */
public sealed interface ConflistAction {

  /** Write {@code desired} atomically, recording it in the manifest first. */
  record Write(DesiredConflist desired, WriteReason reason) implements ConflistAction {}

  /** On disk as desired; nothing to do. */
  record Keep(DesiredConflist desired) implements ConflistAction {}

  /** A file of that name exists and is not the agent's: reported, never overwritten. */
  record Conflict(DesiredConflist desired, String message) implements ConflistAction {}

  /** The spec entry itself is unusable (bad file name, sha256 mismatch): nothing is written. */
  record Reject(DesiredConflist desired, String message) implements ConflistAction {}

  /**
   * The network cannot be served on this node now (its plugins are missing or do not support its
   * version): whatever the agent wrote before stays, nothing new is written.
   */
  record Hold(DesiredConflist desired, String message) implements ConflistAction {}

  /** The spec no longer lists this managed file: delete it and drop it from the manifest. */
  record Remove(String fileName) implements ConflistAction {}

  /**
   * Drop a manifest entry without touching the disk: the file is already gone, or someone else's
   * content replaced it, which makes it theirs.
   */
  record Forget(String fileName, String why) implements ConflistAction {}
}
