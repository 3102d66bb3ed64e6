package dev.cnioperator.agent.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A stand-in for an installer that chains its plugin into the pod network's file in place, as
 * Istio's {@code install-cni} does in its default mode: it takes the first conflist of the
 * directory in byte order that parses, appends its own entry to {@code plugins} unless one of its
 * type is there, writes the file back re-marshalled the way Go's encoder does (keys sorted, no
 * indent) through a temporary file and a rename, and does so again on every change the directory's
 * inotify watch reports. It counts its writes, and the times it found the file without its entry
 * after its first insertion (each a window in which a pod would start without the mesh's plugin).
 */
final class ChainingInstaller implements AutoCloseable {
  private static final ObjectMapper GO_LIKE =
      new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private final Path confDir;
  private final ObjectNode entry;
  private final DirectoryReaction reaction;
  final AtomicInteger writes = new AtomicInteger();
  final AtomicInteger foundWithout = new AtomicInteger();

  ChainingInstaller(Path confDir, String entryJson) throws IOException {
    this.confDir = confDir;
    this.entry = (ObjectNode) GO_LIKE.readTree(entryJson);
    this.reaction = new DirectoryReaction(confDir, "chaining-installer", this::insert);
  }

  String type() {
    return entry.get("type").asText();
  }

  private synchronized void insert() throws IOException {
    Optional<Path> target = firstConflist();
    if (target.isEmpty()) {
      return;
    }
    ObjectNode list;
    try {
      list = (ObjectNode) GO_LIKE.readTree(Files.readAllBytes(target.get()));
    } catch (IOException | ClassCastException e) {
      return; // half-written or not a list: the next event brings it again
    }
    ArrayNode plugins = list.withArray("plugins");
    for (JsonNode p : plugins) {
      if (type().equals(p.path("type").asText())) {
        return;
      }
    }
    if (writes.get() > 0) {
      foundWithout.incrementAndGet();
    }
    plugins.add(entry.deepCopy());
    // Go marshals a map with its keys sorted: re-read as a sorted map before writing.
    Object sorted = GO_LIKE.treeToValue(list, Object.class);
    Path temp = confDir.resolve("." + target.get().getFileName() + ".installer.tmp");
    Files.write(temp, GO_LIKE.writeValueAsBytes(sorted));
    Files.move(temp, target.get(), StandardCopyOption.ATOMIC_MOVE);
    writes.incrementAndGet();
  }

  private Optional<Path> firstConflist() throws IOException {
    try (Stream<Path> files = Files.list(confDir)) {
      List<Path> sorted =
          files
              .filter(
                  p -> {
                    String n = p.getFileName().toString();
                    return !n.startsWith(".")
                        && (n.endsWith(".conflist") || n.endsWith(".conf") || n.endsWith(".json"));
                  })
              .sorted()
              .toList();
      for (Path p : sorted) {
        try {
          if (GO_LIKE.readTree(Files.readAllBytes(p)).has("plugins")) {
            return Optional.of(p);
          }
        } catch (IOException e) {
          // not valid JSON: the next one
        }
      }
      return Optional.empty();
    }
  }

  @Override
  public void close() throws Exception {
    reaction.close();
  }
}
