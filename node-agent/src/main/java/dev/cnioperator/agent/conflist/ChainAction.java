package dev.cnioperator.agent.conflist;

import java.util.List;
import java.util.SortedMap;

/** One step {@link ChainSync} decided for a network appended to another product's file. */
public sealed interface ChainAction {

  /** One method per kind of action: a new kind does not compile until every visitor handles it. */
  interface Visitor<R> {
    R append(Append action);

    R inPlace(InPlace action);

    R waiting(Waiting action);

    R unappend(Unappend action);

    R later(Later action);

    R drop(Drop action);

    R contested(Contested action);

    R placeDropIns(PlaceDropIns action);

    R removeDropIns(RemoveDropIns action);
  }

  <R> R accept(Visitor<R> visitor);

  /**
   * Write {@code content} to {@code fileName}: the other product's file as read (sha256 {@code
   * readSha256}) with the declared entries appended. Not written when the file changed since it was
   * read: the next pass reads it again.
   *
   * @param entries the appended entries (a JSON array), recorded to take them out later
   * @param reapplied true when the file held the entries before and was rewritten without them
   * @param runs what the runtime runs once it is written: the file's plugins, then the drop-ins of
   *     its drop-in directory
   * @param note why the entries are in place when drop-ins were asked for; empty otherwise
   */
  record Append(
      DesiredConflist desired,
      String fileName,
      String readSha256,
      byte[] content,
      String entries,
      boolean reapplied,
      byte[] runs,
      String note)
      implements ChainAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.append(this);
    }
  }

  /**
   * The file holds the declared entries already; {@code file} is its content, {@code runs} what the
   * runtime runs: its plugins, then the drop-ins of its drop-in directory; {@code note}, why the
   * entries are in place when drop-ins were asked for (empty otherwise).
   */
  record InPlace(
      DesiredConflist desired,
      String fileName,
      byte[] file,
      String entries,
      byte[] runs,
      String note)
      implements ChainAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.inPlace(this);
    }
  }

  /**
   * Nothing can be appended now, for {@code why}; whatever is there stays. {@code passing} when it
   * may be over in a moment (a file being written).
   */
  record Waiting(DesiredConflist desired, String why, boolean passing) implements ChainAction {
    public Waiting(DesiredConflist desired, String why) {
      this(desired, why, false);
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.waiting(this);
    }
  }

  /**
   * Take the entries the agent appended out of {@code fileName} again (the declaration went, or the
   * network moved to another file): write {@code content}, unless the file changed since it was
   * read.
   */
  record Unappend(String network, String fileName, String readSha256, byte[] content)
      implements ChainAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.unappend(this);
    }
  }

  /**
   * The entries of {@code network} are to come out of {@code fileName}, which cannot be parsed now
   * (its product may be writing it): the record stays, and the next look tries again.
   */
  record Later(String network, String fileName, String why) implements ChainAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.later(this);
    }
  }

  /** Forget the record of {@code network}'s entries: they are no longer in any file. */
  record Drop(String network, String why) implements ChainAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.drop(this);
    }
  }

  /**
   * The other product's {@code fileName} was rewritten without the network's entries again after
   * each of the agent's last re-appends ({@link ContestedFiles}): not appended now, reported with
   * why and until when.
   */
  record Contested(DesiredConflist desired, String fileName, String why) implements ChainAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.contested(this);
    }
  }

  /**
   * Hold the network's entries as drop-in files of {@code target}'s directory ({@code <conf
   * dir>/<target>/}), one per entry: write {@code write} (missing, or not as the agent wrote them),
   * remove {@code stale} (the agent's files no longer declared); the other product's file, {@code
   * targetFile}, is not touched. Steady when both are empty.
   *
   * @param files every drop-in of the network, by name, as it must be
   * @param restored true when a file the agent wrote was changed or removed by someone else
   * @param runs what the runtime runs once it reloads: the target's plugins, then every drop-in of
   *     the directory in file-name order
   */
  record PlaceDropIns(
      DesiredConflist desired,
      String targetFile,
      SortedMap<String, byte[]> files,
      SortedMap<String, byte[]> write,
      List<String> stale,
      boolean restored,
      byte[] runs)
      implements ChainAction {
    public String target() {
      return desired.appendTo();
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.placeDropIns(this);
    }
  }

  /**
   * Take the drop-ins the agent wrote for {@code network} out of {@code target}'s directory: the
   * declaration went, moved to another network, or is held in place now. {@code files} are those
   * still as the agent wrote them; {@code changed}, those someone else changed since, are left
   * there and forgotten.
   */
  record RemoveDropIns(String network, String target, List<String> files, List<String> changed)
      implements ChainAction {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.removeDropIns(this);
    }
  }
}
