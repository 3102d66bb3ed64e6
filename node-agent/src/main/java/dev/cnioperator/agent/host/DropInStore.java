package dev.cnioperator.agent.host;

import java.nio.file.Path;

/** Reads and atomically writes the {@link DropIns} record in the agent's state directory. */
public final class DropInStore {
  private final StateFile<DropIns> file;

  public DropInStore(HostFiles files, Path file) {
    this.file =
        new StateFile<>(files, file, DropIns.class, DropIns.NONE, "a valid record of drop-ins");
  }

  /** The record; none on a node the agent wrote no drop-in to. */
  public DropIns load() {
    return file.load();
  }

  /** Replaces the record, atomically; removes it when it names nothing. */
  public void save(DropIns record) {
    if (record.networks().isEmpty()) {
      file.remove();
    } else {
      file.save(record);
    }
  }
}
