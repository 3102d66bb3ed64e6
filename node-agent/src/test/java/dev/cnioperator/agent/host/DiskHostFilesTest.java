package dev.cnioperator.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.io.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskHostFilesTest {
  private final DiskHostFiles files = new DiskHostFiles();

  @Test
  void sha256SeesEveryChangeEvenASameSizeRewriteWithItsMtimePutBack(@TempDir Path dir)
      throws Exception {
    Path f = dir.resolve("bridge");
    Files.write(f, bytes("aaaa"));
    assertThat(files.sha256(f)).contains(Sha256.hex(bytes("aaaa")));
    assertThat(files.sha256(f)).contains(Sha256.hex(bytes("aaaa")));

    // Someone rewrites the binary in place with bytes of the same length and hides the mtime.
    var mtime = Files.getLastModifiedTime(f);
    awaitTheClockPastTheCtimeOf(f);
    Files.write(f, bytes("bbbb"));
    Files.setLastModifiedTime(f, mtime);
    assertThat(files.sha256(f)).contains(Sha256.hex(bytes("bbbb")));

    files.writeAtomically(f, bytes("cccc"), true);
    assertThat(files.sha256(f)).contains(Sha256.hex(bytes("cccc")));

    Files.delete(f);
    assertThat(files.sha256(f)).isEmpty();
  }

  @Test
  void aMovedInBinaryAnswersTheDigestItsWriterGaveUntilItChanges(@TempDir Path dir)
      throws Exception {
    Path temp = files.newTemporaryFile(dir, "bridge");
    Files.write(temp, bytes("aaaa"));
    Path target = dir.resolve("bridge");

    // A digest the bytes do not have: answering it proves the file was not read again.
    files.moveAtomically(temp, target, true, "given-by-the-writer");
    assertThat(files.sha256(target)).contains("given-by-the-writer");
    assertThat(Files.getPosixFilePermissions(target))
        .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));

    // Rewritten in place with bytes of the same length, mtime put back: read and hashed again.
    var mtime = Files.getLastModifiedTime(target);
    awaitTheClockPastTheCtimeOf(target);
    Files.write(target, bytes("bbbb"));
    Files.setLastModifiedTime(target, mtime);
    assertThat(files.sha256(target)).contains(Sha256.hex(bytes("bbbb")));
  }

  @Test
  void aBinaryLargerThanOneReadIsHashedWhole(@TempDir Path dir) throws Exception {
    byte[] big = new byte[200 * 1024 + 7];
    new java.util.Random(13).nextBytes(big);
    Path f = dir.resolve("host-local");
    Files.write(f, big);
    assertThat(files.sha256(f)).contains(Sha256.hex(big));
  }

  @Test
  void aWriteIntoADirectoryThatDoesNotExistYetMakesIt(@TempDir Path dir) throws Exception {
    // A fresh node before its first plugin install: no /opt/cni/bin at all.
    Path binary = dir.resolve("opt/cni/bin/bridge");

    new DiskHostFiles().writeAtomically(binary, new byte[] {1, 2, 3}, true);

    assertThat(Files.readAllBytes(binary)).containsExactly(1, 2, 3);
    assertThat(Files.list(binary.getParent())).containsExactly(binary);
  }

  @Test
  void atomicWriteReplacesContentAndLeavesNoTemporaryFile(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("50-a.conflist");
    files.writeAtomically(f, bytes("old"), false);
    files.writeAtomically(f, bytes("new"), false);
    assertThat(Files.readString(f)).isEqualTo("new");
    assertThat(files.list(dir)).containsExactly("50-a.conflist");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-r--r--");
  }

  @Test
  void executableWriteIsMode755(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("bridge");
    files.writeAtomically(f, bytes("#!/bin/sh"), true);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rwxr-xr-x");
  }

  @Test
  void temporaryFilesNeverCarryANameARuntimeLoads(@TempDir Path dir) throws Exception {
    // A runtime that reloads net.d must never see a half-written file as a config (kindnet #42).
    for (String name : new String[] {"50-a.conflist", "50-b.conf", "50-c.json"}) {
      String temp = files.newTemporaryFile(dir, name).getFileName().toString();
      assertThat(temp).startsWith(".").doesNotEndWith(".conf").doesNotEndWith(".conflist");
      assertThat(temp).doesNotEndWith(".json");
    }
  }

  @Test
  void leftoverTemporaryFilesAreRemovedButNothingElse(@TempDir Path dir) throws Exception {
    Path ours = files.newTemporaryFile(dir, "50-a.conflist");
    Files.writeString(dir.resolve(".someone-elses.tmp"), "x");
    Files.writeString(dir.resolve("10-foreign.conflist"), "x");
    files.removeLeftoverTemporaryFiles(dir);
    assertThat(ours).doesNotExist();
    assertThat(files.list(dir)).containsExactly(".someone-elses.tmp", "10-foreign.conflist");
  }

  @Test
  void sha256OfMissingFileIsEmpty(@TempDir Path dir) throws Exception {
    assertThat(files.sha256(dir.resolve("nope"))).isEmpty();
    Files.writeString(dir.resolve("x"), "abc");
    assertThat(files.sha256(dir.resolve("x")))
        .contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }

  @Test
  void manifestRoundTripsAndACorruptOneIsATypedErrorNamingTheFile(@TempDir Path dir)
      throws Exception {
    ManifestStore store = new ManifestStore(files, dir.resolve("state/manifest.json"));
    assertThat(store.load()).isEqualTo(Manifest.empty());
    Manifest m =
        Manifest.empty()
            .withConflist(ConfigDirectory.Runtime, "50-a.conflist", "aa", "a")
            .withBinary("bridge", "bb", "x");
    store.save(m);
    assertThat(store.load()).isEqualTo(m);
    Files.writeString(store.file(), "{not json");
    assertThatThrownBy(store::load)
        .isInstanceOf(ManifestException.class)
        .hasMessageContaining(store.file().toString());
  }

  /**
   * Waits until a change made now would carry a later ctime than {@code file} has. The rewrites
   * above are seen by their ctime, which the kernel stamps from a clock that ticks only every 1 to
   * 10 ms on kernels without fine-grained timestamps (before Linux 6.13): a rewrite within the tick
   * of the last stamp keeps the same ctime, and no stat can tell it. A probe file beside it shows
   * when the clock has moved on.
   */
  private static void awaitTheClockPastTheCtimeOf(Path file) throws IOException {
    FileTime stamped = ctime(file);
    Path probe = Files.createTempFile(file.getParent(), ".clock", ".probe");
    try {
      await("a ctime later than " + file + "'s " + stamped)
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(1))
          .until(
              () -> {
                Files.setLastModifiedTime(probe, FileTime.from(Instant.now()));
                return ctime(probe).compareTo(stamped) > 0;
              });
    } finally {
      Files.delete(probe);
    }
  }

  private static FileTime ctime(Path file) throws IOException {
    return (FileTime) Files.getAttribute(file, "unix:ctime");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
