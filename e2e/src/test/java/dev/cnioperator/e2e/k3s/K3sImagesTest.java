package dev.cnioperator.e2e.k3s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.testkit.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class K3sImagesTest {
  @TempDir Path dir;

  @Test
  void aPrefixAndTagNameBothImagesTheWayTheChartTakesThem() {
    K3sImages images = K3sImages.fromSetting("registry.example:5000/team/cni:1.2.3", dir);

    assertThat(images.operator())
        .isEqualTo(new ImageReference("registry.example:5000", "team/cni/operator", "1.2.3"));
    assertThat(images.agent().toString())
        .isEqualTo("registry.example:5000/team/cni/node-agent:1.2.3");
    assertThat(images.tarballs()).isEmpty();
    assertThat(images.pullPolicy()).isEqualTo("IfNotPresent");
    assertThat(images.operator().helmValues("operator.image", "IfNotPresent"))
        .containsSubsequence(
            "operator.image.registry=registry.example:5000",
            "operator.image.repository=team/cni/operator",
            "operator.image.tag=1.2.3");
  }

  @Test
  void aFirstSegmentThatIsNoHostIsPartOfTheRepository() {
    assertThat(ImageReference.parse("me/cni/operator:dev"))
        .isEqualTo(new ImageReference("", "me/cni/operator", "dev"));
    assertThat(ImageReference.parse("localhost/cni/operator:dev").registry())
        .isEqualTo("localhost");
  }

  @Test
  void aReferenceWithoutATagIsRefusedNamingTheVariable() {
    assertThatThrownBy(() -> K3sImages.fromSetting("localhost:5000/cni", dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CNI_OPERATOR_IMAGES=localhost:5000/cni")
        .hasMessageContaining("jib-tar");
  }

  @Test
  void jibTarWithoutTheTarballsSaysHowToBuildThem() {
    assertThatThrownBy(() -> K3sImages.fromSetting("jib-tar", dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operator/target/jib-image.tar")
        .hasMessageContaining("./mvnw -Pimages package");
  }

  @Test
  void jibTarballsAreImportedUnderTheNameInTheirManifest() throws IOException {
    for (String module : new String[] {"operator", "node-agent"}) {
      Path content = Files.createDirectories(dir.resolve("content-" + module));
      Files.writeString(
          content.resolve("manifest.json"),
          "[{\"Config\":\"config.json\",\"RepoTags\":[\"ghcr.io/cni-operator/"
              + module
              + ":0.1.0\"],\"Layers\":[]}]");
      Path tar = Files.createDirectories(dir.resolve(module + "/target")).resolve("jib-image.tar");
      Commands.run("tar", "-cf", tar.toString(), "-C", content.toString(), "manifest.json")
          .orThrow("tar");
    }

    K3sImages images = K3sImages.fromSetting("jib-tar", dir);

    assertThat(images.operator().toString()).isEqualTo("ghcr.io/cni-operator/operator:0.1.0");
    assertThat(images.agent().repository()).isEqualTo("cni-operator/node-agent");
    assertThat(images.tarballs()).hasSize(2);
    assertThat(images.pullPolicy()).isEqualTo("Never");
  }

  @Test
  void aTarballWithoutAManifestIsRefused() throws IOException {
    Path tar = dir.resolve("empty.tar");
    Files.writeString(dir.resolve("x"), "x");
    Commands.run("tar", "-cf", tar.toString(), "-C", dir.toString(), "x").orThrow("tar");

    assertThatThrownBy(() -> K3sImages.tagOfTarball(tar))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not an image tarball");
  }
}
