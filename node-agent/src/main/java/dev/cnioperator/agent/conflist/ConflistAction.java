package dev.cnioperator.agent.conflist;

import dev.cnioperator.agent.host.WriteReason;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;

/** One step {@link ConflistSync} decided; {@link ConflistApplier} carries it out. */
public sealed interface ConflistAction {

  /**
   * One method per kind of action, so that a new kind does not compile until every visitor handles
   * it: Java 17's {@code switch} cannot match on the records of a sealed interface (that is a
   * preview feature there), and an {@code instanceof} chain skips an unknown kind in silence.
   */
  interface Visitor<R> {
    R write(Write action);

    R keep(Keep action);

    R conflict(Conflict action);

    R reject(Reject action);

    R hold(Hold action);

    R contested(Contested action);

    R remove(Remove action);

    R forget(Forget action);
  }

  <R> R accept(Visitor<R> visitor);

  /**
   * Write {@code desired} atomically, recording it in the manifest first, with {@code carried}
   * (what another installer appended to the file it replaces) after its own plugins.
   */
  record Write(DesiredConflist desired, WriteReason reason, Appended carried)
      implements ConflistAction {
    public Write(DesiredConflist desired, WriteReason reason) {
      this(desired, reason, Appended.NONE);
    }

    /** The bytes to write. */
    public byte[] content() {
      return carried.onto(desired);
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.write(this);
    }
  }

  /**
   * On disk as desired, with {@code appended} (another installer's entries after its own plugins,
   * kept); nothing to do. {@code fileSha256} is the sha256 of the file as it is, what the runtime
   * loads.
   */
  record Keep(DesiredConflist desired, Appended appended, String fileSha256)
      implements ConflistAction {
    public Keep(DesiredConflist desired) {
      this(desired, Appended.NONE, desired.sha256());
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.keep(this);
    }
  }

  /** A file of that name exists and is not the agent's: reported, never overwritten. */
  record Conflict(DesiredConflist desired, String message) implements ConflistAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.conflict(this);
    }
  }

  /** The spec entry itself is unusable (bad file name, sha256 mismatch): nothing is written. */
  record Reject(DesiredConflist desired, String message) implements ConflistAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.reject(this);
    }
  }

  /**
   * The network cannot be served on this node now (its plugins are missing or do not support its
   * version): whatever the agent wrote before stays, nothing new is written.
   */
  record Hold(DesiredConflist desired, String message) implements ConflistAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.hold(this);
    }
  }

  /**
   * The file was taken away again after each of the agent's last restores ({@link ContestedFiles}):
   * not restored now, reported with what was seen.
   */
  record Contested(DesiredConflist desired, String message) implements ConflistAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.contested(this);
    }
  }

  /** The spec no longer lists this managed file: delete it and drop it from the manifest. */
  record Remove(ConfigDirectory directory, String fileName) implements ConflistAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.remove(this);
    }
  }

  /**
   * Drop a manifest entry without touching the disk: the file is already gone, or someone else's
   * content replaced it, which makes it theirs.
   */
  record Forget(ConfigDirectory directory, String fileName, String why) implements ConflistAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.forget(this);
    }
  }
}
