package dev.cnioperator.e2e.release;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/release stops before it builds, pushes or tags anything when the release cannot be made: run,
 * with --dry-run, in a clone of this repository holding this tree's bin/release.
 */
class ReleaseRefusalsTest {
  private static final String REGISTRY = "localhost:1/cni";

  /** A version no release of this repository has: the refusals are of everything else. */
  private static final String VERSION = "99.0.0";

  @TempDir Path dir;
  private Path clone;

  @BeforeEach
  void cloneWithThisTreesReleaseCommand() throws IOException {
    Path root = ToolPaths.repoRoot();
    clone = dir.resolve("clone");
    git(dir, "clone", "-q", root.toString(), clone.toString());
    for (String file : List.of("bin/release", "bin/publish", "CHANGELOG.md")) {
      Files.copy(root.resolve(file), clone.resolve(file), StandardCopyOption.REPLACE_EXISTING);
    }
    commitAll("this tree's release command");
  }

  @Test
  void anUntrackedFileIsRefused() throws IOException {
    Files.writeString(clone.resolve("stray"), "x");

    assertRefused(VERSION, "the working tree has changes");
  }

  @Test
  void aVersionWhoseTagExistsIsRefused() {
    git(clone, "tag", "v9.9.9");

    assertRefused("9.9.9", "v9.9.9 exists");
  }

  @Test
  void aSnapshotOrNonSemverVersionIsRefused() {
    assertRefused(VERSION + "-SNAPSHOT", "not a release version");
    assertRefused("99.0", "not a release version");
  }

  @Test
  void anEmptyUnreleasedSectionIsRefused() throws IOException {
    Path changelog = clone.resolve("CHANGELOG.md");
    Files.writeString(
        changelog, "# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-12-06\n\n- x\n");
    commitAll("no entries");

    assertRefused(VERSION, "no entries under ## [Unreleased]");
  }

  private CommandResult release(String version) {
    return Commands.run(
        List.of("bash", clone.resolve("bin/release").toString(), "--dry-run", version, REGISTRY),
        Map.of(),
        null,
        Duration.ofSeconds(30));
  }

  /** bin/release of {@code version} stops for {@code reason}, leaving no tag and no worktree. */
  private void assertRefused(String version, String reason) {
    String tags = git(clone, "tag", "-l").stdout();
    CommandResult result = release(version);
    assertThat(result.exitCode()).as("exit code; stderr: %s", result.stderr()).isEqualTo(1);
    assertThat(result.stderr()).contains("release: ").contains(reason);
    assertThat(git(clone, "tag", "-l").stdout()).as("the tags").isEqualTo(tags);
    assertThat(git(clone, "worktree", "list").stdout().lines()).hasSize(1);
  }

  private void commitAll(String message) {
    git(clone, "add", "-A");
    git(
        clone,
        "-c",
        "user.name=test",
        "-c",
        "user.email=test@example.invalid",
        "commit",
        "--allow-empty",
        "-qm",
        message);
  }

  private static CommandResult git(Path in, String... args) {
    List<String> command = new ArrayList<>(List.of("git", "-C", in.toString()));
    command.addAll(List.of(args));
    return Commands.run(command).orThrow(String.join(" ", command));
  }
}
