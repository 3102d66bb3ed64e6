package dev.cnioperator.agent.host;

/** Why the agent (re)writes one of its files: a conflist or a plugin binary. */
public enum WriteReason {
  /** Not on disk and not in the manifest: new to this node. */
  CREATE,
  /** The agent's own older version is on disk. */
  UPDATE,
  /** The manifest lists it but someone removed it: drift, restored. */
  RESTORE_REMOVED,
  /** Someone changed the agent's file: drift, restored. */
  RESTORE_CHANGED;

  public boolean isDrift() {
    return this == RESTORE_REMOVED || this == RESTORE_CHANGED;
  }
}
