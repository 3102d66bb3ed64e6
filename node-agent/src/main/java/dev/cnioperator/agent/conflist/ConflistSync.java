package dev.cnioperator.agent.conflist;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.agent.conflist.ConflistAction.Conflict;
import dev.cnioperator.agent.conflist.ConflistAction.Forget;
import dev.cnioperator.agent.conflist.ConflistAction.Hold;
import dev.cnioperator.agent.conflist.ConflistAction.Keep;
import dev.cnioperator.agent.conflist.ConflistAction.Reject;
import dev.cnioperator.agent.conflist.ConflistAction.Remove;
import dev.cnioperator.agent.conflist.ConflistAction.Write;
import dev.cnioperator.agent.host.ManagedFile;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.WriteReason;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides what to do with the configuration directories: desired conflists + the manifest of what
 * the agent owns + what is on disk in, actions out. Pure, so every ownership rule is a unit test.
 *
 * <p>The same rules hold in each directory (the runtime's, and Multus's for secondary networks),
 * and each is its own name space: a file is claimed, owned and found on disk in its directory, so a
 * network that moves from one directory to the other is written in the new one and removed from the
 * old one like any file the spec no longer lists there.
 *
 * <p>A file of the agent is its own when it holds what the agent wrote, or that plus plugin entries
 * another installer appended ({@link Appended}): those are kept, and carried into a new revision.
 * Any other change is drift, restored.
 */
public final class ConflistSync {

  /**
   * @param desired what the CniNode spec lists, in spec order
   * @param heldBack networks that must not be (re)written now, with the reason
   * @param manifest what the agent owns
   * @param onDisk the content of every file present that the spec or the manifest names, by
   *     directory and file name
   */
  public List<ConflistAction> plan(
      List<DesiredConflist> desired,
      Map<String, String> heldBack,
      Manifest manifest,
      Map<ConfigDirectory, Map<String, byte[]>> onDisk) {
    List<ConflistAction> actions = new ArrayList<>();
    Map<ConfigDirectory, Set<String>> claimed = new EnumMap<>(ConfigDirectory.class);
    for (ConfigDirectory dir : ConfigDirectory.values()) {
      claimed.put(dir, new HashSet<>());
    }
    for (DesiredConflist d : desired) {
      Optional<String> problem = ConflistFileName.problem(d.fileName());
      if (problem.isPresent()) {
        actions.add(new Reject(d, problem.get()));
      } else if (!claimed.get(d.directory()).add(d.fileName())) {
        actions.add(new Reject(d, "fileName " + d.fileName() + " is listed twice in the spec"));
      } else if (heldBack.containsKey(d.network())) {
        // Before the sha256 check: an entry the node cannot have yet carries no content at all.
        actions.add(new Hold(d, heldBack.get(d.network())));
      } else if (d.contentProblem().isPresent()) {
        actions.add(new Reject(d, d.contentProblem().get()));
      } else {
        actions.add(
            decide(
                d,
                manifest.conflist(d.directory(), d.fileName()),
                disk(onDisk, d.directory()).get(d.fileName())));
      }
    }
    for (ConfigDirectory dir : ConfigDirectory.values()) {
      for (Map.Entry<String, ManagedFile> owned : manifest.conflists(dir).entrySet()) {
        String fileName = owned.getKey();
        if (!claimed.get(dir).contains(fileName)) {
          actions.add(leave(dir, fileName, owned.getValue(), disk(onDisk, dir).get(fileName)));
        }
      }
    }
    return actions;
  }

  private static Map<String, byte[]> disk(
      Map<ConfigDirectory, Map<String, byte[]>> onDisk, ConfigDirectory dir) {
    return onDisk.getOrDefault(dir, Map.of());
  }

  private static ConflistAction decide(
      DesiredConflist d, Optional<ManagedFile> owned, byte[] disk) {
    if (owned.isEmpty()) {
      return disk == null
          ? new Write(d, WriteReason.CREATE)
          : new Conflict(
              d,
              "a file named "
                  + d.fileName()
                  + " that this agent did not write is in the way"
                  + (d.directory() == ConfigDirectory.Multus
                      ? " in Multus's configuration directory"
                      : ""));
    }
    if (disk == null) {
      return new Write(d, WriteReason.RESTORE_REMOVED);
    }
    String diskSha256 = Sha256.hex(disk);
    if (diskSha256.equals(d.sha256())) {
      return new Keep(d);
    }
    Optional<ObjectNode> found = Appended.parse(disk);
    Optional<Appended> onCurrent = Appended.after(Appended.parse(d.bytes()), found);
    if (onCurrent.isPresent() && !onCurrent.get().isEmpty()) {
      // The current revision with others' entries after its own: as the agent or they left it.
      return new Keep(d, onCurrent.get(), diskSha256);
    }
    Optional<Appended> onOwned =
        owned.get().content() == null
            ? Optional.empty()
            : Appended.after(
                Appended.parse(owned.get().content().getBytes(StandardCharsets.UTF_8)), found);
    if (owned.get().isOwnVersion(diskSha256)) {
      return new Write(d, WriteReason.UPDATE, onOwned.orElse(Appended.NONE));
    }
    if (onOwned.isPresent() && !onOwned.get().isEmpty()) {
      return new Write(d, WriteReason.UPDATE, onOwned.get());
    }
    return new Write(d, WriteReason.RESTORE_CHANGED);
  }

  /** What others appended to the agent's content in {@code disk}, when that is what it holds. */
  static Optional<Appended> appendedToOwn(ManagedFile owned, byte[] disk) {
    return owned.content() == null ? Optional.empty() : Appended.after(owned.content(), disk);
  }

  private static ConflistAction leave(
      ConfigDirectory dir, String fileName, ManagedFile owned, byte[] disk) {
    if (disk == null) {
      return new Forget(dir, fileName, "already gone from disk");
    }
    if (!owned.isOwnVersion(Sha256.hex(disk)) && appendedToOwn(owned, disk).isEmpty()) {
      return new Forget(
          dir, fileName, "changed by someone else, so it is theirs now; left in place");
    }
    return new Remove(dir, fileName);
  }
}
