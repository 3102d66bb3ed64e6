package dev.cnioperator.cni.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.cni.io.AtomicFiles.Durability;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
  @Test
  void replacesTheTargetWithTheTemporarysContentAndModeLeavingOnlyTheTarget(@TempDir Path dir)
      throws Exception {
    Path target = dir.resolve("entry");
    Files.writeString(target, "old, longer content");
    for (Durability d : Durability.values()) {
      Path temp = Files.createFile(dir.resolve(".entry.tmp"));
      AtomicFiles.write(temp, target, ("new " + d).getBytes(StandardCharsets.UTF_8), d);
      assertThat(Files.readString(target)).isEqualTo("new " + d);
      try (var list = Files.list(dir)) {
        assertThat(list).containsExactly(target);
      }
    }
    Path temp = Files.createFile(dir.resolve(".entry.tmp"));
    AtomicFiles.replace(
        temp, target, PosixFilePermissions.fromString("rwxr-xr-x"), Durability.FSYNC);
    assertThat(Files.getPosixFilePermissions(target))
        .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(Files.size(target)).isZero();
  }

  @Test
  void aMissingTemporaryIsAnErrorAndTheTargetStays(@TempDir Path dir) throws Exception {
    Path target = dir.resolve("entry");
    Files.writeString(target, "kept");
    assertThatThrownBy(
            () -> AtomicFiles.replace(dir.resolve("gone"), target, null, Durability.FSYNC))
        .isInstanceOf(IOException.class);
    assertThat(Files.readString(target)).isEqualTo("kept");
  }
}
