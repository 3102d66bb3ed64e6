package dev.cnioperator.testkit.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The product's two images as the README's test command builds them: Jib tarballs in the operator's
 * and the node agent's {@code target} directories, named as the chart's defaults.
 */
public final class ProductImages {
  /** The command that builds both tarballs (on the base images e2e/bin/provision makes). */
  public static final String BUILD_COMMAND =
      "e2e/bin/test, or e2e/bin/provision then ./mvnw -Dimages.local package -DskipTests"
          + " (docs/images.md)";

  private ProductImages() {}

  /** One image: the reference it is tagged with and the tarball to import. */
  public record ProductImage(String reference, Path tarball) {}

  /** {@code ghcr.io/cni-operator/operator:<version>} from {@code operator/target}. */
  public static ProductImage operator() {
    return of("operator");
  }

  /** {@code ghcr.io/cni-operator/node-agent:<version>} from {@code node-agent/target}. */
  public static ProductImage agent() {
    return of("node-agent");
  }

  /**
   * The tarball of {@code module} and the name Jib gave it. Fails (CI) or skips (elsewhere), naming
   * the command to run, when the tarball is missing.
   */
  static ProductImage of(String module) {
    Path tarball = tarball(ToolPaths.repoRoot(), module);
    Prerequisites.require(
        Files.isRegularFile(tarball), "the " + module + " image at " + tarball, BUILD_COMMAND);
    return new ProductImage(reference(tarball), tarball);
  }

  static Path tarball(Path repoRoot, String module) {
    return repoRoot.resolve(module).resolve("target/jib-image.tar");
  }

  /**
   * The first RepoTags entry of the tarball's {@code manifest.json}, the name Jib gave it; an
   * {@link IllegalArgumentException} when the file is not an image tarball.
   */
  public static String reference(Path tarball) {
    CommandResult manifest = Commands.run("tar", "-xOf", tarball.toString(), "manifest.json");
    if (!manifest.ok()) {
      throw new IllegalArgumentException(
          tarball + " is not an image tarball (no manifest.json): " + manifest.stderr().strip());
    }
    JsonNode tag;
    try {
      tag = new ObjectMapper().readTree(manifest.stdout()).path(0).path("RepoTags").path(0);
    } catch (IOException e) {
      throw new IllegalArgumentException(tarball + ": manifest.json is not JSON", e);
    }
    if (!tag.isTextual()) {
      throw new IllegalArgumentException(tarball + ": manifest.json names no image (RepoTags)");
    }
    return tag.asText();
  }
}
