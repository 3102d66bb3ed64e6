package dev.cnioperator.agent.host;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The directories the agent made on the node for a directory it writes into only on some nodes
 * (Multus's conf dir), recorded before they are made and removed once empty, so that a node gets
 * them only while it holds a file of the agent's there, and a directory that was there before (made
 * by Multus, an admin, or a volume's mount) is never removed. The record is a file of its own in
 * the state dir, not a manifest field: a 0.1.0 agent refuses a manifest with a field it does not
 * know, and must still read this version's after a rollback.
 */
public final class CreatedDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(CreatedDirectories.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The record's content. */
  private record Made(@JsonProperty("directories") List<String> directories) {}

  private final HostFiles files;
  private final Path dir;
  private final Path record;

  /**
   * @param dir the directory the agent writes into
   * @param record where the directories it made are recorded
   */
  public CreatedDirectories(HostFiles files, Path dir, Path record) {
    this.files = files;
    this.dir = dir;
    this.record = record;
  }

  /**
   * Makes the directory and its missing parents, each recorded first: after a kill in between, the
   * record names every directory the agent may have made.
   */
  public void make() throws IOException {
    List<Path> missing = new ArrayList<>();
    for (Path d = dir; d != null && !files.isDirectory(d); d = d.getParent()) {
      missing.add(d);
    }
    if (missing.isEmpty()) {
      return;
    }
    Set<Path> made = load();
    made.addAll(missing);
    save(made);
    files.createDirectories(dir);
    Collections.reverse(missing);
    LOG.info("event=directories-created dirs={}", missing);
  }

  /**
   * Removes the recorded directories that are empty, the deepest first. For when the agent has no
   * file left in the directory: one that holds another's file stays recorded and goes when empty.
   */
  public void removeEmpty() {
    Set<Path> made = load();
    if (made.isEmpty()) {
      return;
    }
    Set<Path> left = new TreeSet<>();
    List<Path> deepestFirst = new ArrayList<>(made);
    deepestFirst.sort(Comparator.comparingInt(Path::getNameCount).reversed());
    for (Path d : deepestFirst) {
      try {
        if (files.deleteEmptyDirectory(d)) {
          LOG.info("event=created-directory-gone dir={}", d);
        } else {
          left.add(d);
        }
      } catch (IOException e) {
        // A mount point (EBUSY), say: kept, and tried again on the next pass.
        LOG.debug("event=created-directory-kept dir={} error=\"{}\"", d, e.getMessage());
        left.add(d);
      }
    }
    if (!left.equals(made)) {
      try {
        save(left);
      } catch (IOException e) {
        LOG.warn("event=created-directories-unsaved file={} error=\"{}\"", record, e.getMessage());
      }
    }
  }

  /** The recorded directories; none when the record is missing or unreadable (nothing removed). */
  Set<Path> load() {
    Set<Path> made = new TreeSet<>();
    try {
      byte[] bytes = files.read(record).orElse(null);
      if (bytes != null) {
        JSON.readValue(bytes, Made.class).directories().forEach(d -> made.add(Path.of(d)));
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("event=created-directories-unreadable file={} error=\"{}\"", record, e.getMessage());
    }
    return made;
  }

  private void save(Set<Path> made) throws IOException {
    if (made.isEmpty()) {
      files.delete(record);
      return;
    }
    files.createDirectories(record.getParent());
    files.writeAtomically(
        record,
        JSON.writeValueAsBytes(new Made(made.stream().map(Path::toString).toList())),
        false);
  }
}
