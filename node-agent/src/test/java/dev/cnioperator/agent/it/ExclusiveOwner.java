package dev.cnioperator.agent.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A reproduction (not Cilium itself: its agent needs a kernel datapath this host cannot give it) of
 * what Cilium's agent does to other files of the CNI directory with {@code cni.exclusive=true}, as
 * read in cilium/cilium {@code daemon/cmd/cni/config.go} ({@code cleanupOtherCNI} and {@code
 * watchForDirectoryChanges}, 1.14 to 1.17): on start and on every inotify event of the directory
 * (not recursive, any kind), every top-level file other than its own whose name ends in {@code
 * .conf}, {@code .conflist} or {@code .json} is renamed to {@code <name>.cilium_bak}, overwriting a
 * previous backup; backups are never renamed back.
 */
final class ExclusiveOwner implements AutoCloseable {
  private final Path confDir;
  private final String own;
  private final DirectoryReaction reaction;
  final AtomicInteger renames = new AtomicInteger();

  ExclusiveOwner(Path confDir, String ownFileName) throws IOException {
    this.confDir = confDir;
    this.own = ownFileName;
    Files.writeString(
        confDir.resolve(own),
        "{\"cniVersion\":\"0.3.1\",\"name\":\"cilium\",\"plugins\":[{\"type\":\"cilium-cni\"}]}");
    this.reaction = new DirectoryReaction(confDir, "exclusive-owner", this::cleanup);
  }

  private void cleanup() throws IOException {
    List<Path> others;
    try (Stream<Path> files = Files.list(confDir)) {
      others =
          files
              .filter(Files::isRegularFile)
              .filter(p -> !p.getFileName().toString().equals(own))
              .filter(
                  p -> {
                    String n = p.getFileName().toString();
                    return n.endsWith(".conf") || n.endsWith(".conflist") || n.endsWith(".json");
                  })
              .sorted()
              .toList();
    }
    for (Path p : others) {
      try {
        Files.move(
            p,
            p.resolveSibling(p.getFileName() + ".cilium_bak"),
            StandardCopyOption.REPLACE_EXISTING);
        renames.incrementAndGet();
      } catch (IOException e) {
        // errors are ignored, as there
      }
    }
  }

  @Override
  public void close() throws Exception {
    reaction.close();
  }
}
