package dev.cnioperator.e2e.k3s;

import dev.cnioperator.testkit.images.ProductImages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The product's images the k3s path runs, chosen by {@code CNI_OPERATOR_IMAGES}: either {@code
 * <registry>/<prefix>:<tag>} (k3s pulls {@code <prefix>/operator:<tag>} and {@code
 * <prefix>/node-agent:<tag>}), or {@code jib-tar}: the tarballs {@code ./mvnw -Pimages package}
 * wrote, imported into k3s's containerd, so no registry is involved at all.
 *
 * @param tarballs image tarballs to import before installing; empty when k3s pulls
 */
record K3sImages(ImageReference operator, ImageReference agent, List<Path> tarballs) {
  static final String ENV = "CNI_OPERATOR_IMAGES";
  static final String JIB_TAR = "jib-tar";

  /**
   * The images {@code setting} (the value of {@value #ENV}) names.
   *
   * @throws IllegalArgumentException naming the setting or the missing tarball
   */
  static K3sImages fromSetting(String setting, Path repoRoot) {
    String value = setting.strip();
    if (value.equals(JIB_TAR)) {
      Path operatorTar = jibTarball(repoRoot, "operator");
      Path agentTar = jibTarball(repoRoot, "node-agent");
      return new K3sImages(
          tagOfTarball(operatorTar), tagOfTarball(agentTar), List.of(operatorTar, agentTar));
    }
    ImageReference prefix;
    try {
      prefix = ImageReference.parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          ENV + "=" + value + ": expected <registry>/<prefix>:<tag> or " + JIB_TAR, e);
    }
    String base =
        (prefix.registry().isEmpty() ? "" : prefix.registry() + "/") + prefix.repository();
    return new K3sImages(
        ImageReference.parse(base + "/operator:" + prefix.tag()),
        ImageReference.parse(base + "/node-agent:" + prefix.tag()),
        List.of());
  }

  /** Imported images are already in containerd; pulled ones are pulled once. */
  String pullPolicy() {
    return tarballs.isEmpty() ? "IfNotPresent" : "Never";
  }

  private static Path jibTarball(Path repoRoot, String module) {
    Path tar = repoRoot.resolve(module).resolve("target/jib-image.tar");
    if (!Files.isRegularFile(tar)) {
      throw new IllegalArgumentException(
          ENV
              + "="
              + JIB_TAR
              + ": "
              + tar
              + " does not exist; build it with ./mvnw -Pimages package (docs/images.md)");
    }
    return tar;
  }

  /** The name Jib gave the image: the first RepoTags entry of the tarball's manifest.json. */
  static ImageReference tagOfTarball(Path tar) {
    return ImageReference.parse(ProductImages.reference(tar));
  }
}
