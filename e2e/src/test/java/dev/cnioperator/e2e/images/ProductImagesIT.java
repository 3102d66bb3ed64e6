package dev.cnioperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.github.packageurl.MalformedPackageURLException;
import com.github.packageurl.PackageURL;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.ContainerdFixture;
import dev.cnioperator.testkit.images.ProductImages;
import dev.cnioperator.testkit.images.ProductImages.ProductImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The images the test command builds are real: a containerd of the test's own imports both tarballs
 * under the chart's names, and runc runs them, each in a network namespace of its own. Each carries
 * SBOMs of what it runs, its base's Debian packages among them (docs/images.md).
 */
class ProductImagesIT {
  private static final String ENTRYPOINT = "/usr/local/bin/cni-node-agent-entrypoint";
  private static final String SBOM_DIR = "/usr/share/cni-operator/sbom/";
  private static final String PLUGIN_DIR = "/opt/cni-node-agent/plugins";

  private static final Pattern CLASSIFIER = Pattern.compile("[?&]classifier=([^&]+)");

  // The versions the root pom pins, which this test runs with too.
  private static final String FABRIC8_VERSION =
      io.fabric8.kubernetes.client.Version.clientVersion();
  private static final String JACKSON_VERSION =
      com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString();

  @TempDir static Path testDir;

  private static ProductImage operator;
  private static ProductImage agent;
  private static ContainerdFixture containerd;

  @BeforeAll
  static void importBothImages() throws IOException {
    Prerequisites.requireRoot();
    operator = ProductImages.operator();
    agent = ProductImages.agent();
    containerd =
        ContainerdFixture.start(
            testDir,
            Files.createDirectories(testDir.resolve("net.d")),
            ToolPaths.debianPluginDir());
    for (ProductImage image : List.of(operator, agent)) {
      containerd
          .ctr(
              "images",
              "import",
              "--snapshotter",
              containerd.snapshotter(),
              image.tarball().toString())
          .orThrow("ctr images import " + image.tarball());
    }
  }

  @AfterAll
  static void stopContainerd() {
    if (containerd != null) {
      containerd.close();
    }
  }

  @Test
  void theRuntimeKnowsBothImagesByTheChartsDefaultNames() throws IOException {
    String version = chart().path("appVersion").asText();
    assertThat(operator.reference()).isEqualTo("ghcr.io/cni-operator/operator:" + version);
    assertThat(agent.reference()).isEqualTo("ghcr.io/cni-operator/node-agent:" + version);
    String listed = containerd.ctr("images", "ls", "-q").orThrow("ctr images ls").stdout();
    assertThat(listed.lines()).contains(operator.reference(), agent.reference());
    for (ProductImage image : List.of(operator, agent)) {
      containerd.crictl("inspecti", image.reference()).orThrow("crictl inspecti " + image);
    }
  }

  @Test
  void eachImageIsLabelledWithTheChartsVersionTheCommitAndTheSource() throws IOException {
    JsonNode chart = chart();
    for (ProductImage image : List.of(operator, agent)) {
      JsonNode labels = config(image).path("config").path("Labels");
      assertThat(labels.path("org.opencontainers.image.version").asText())
          .isEqualTo(chart.path("appVersion").asText());
      assertThat(labels.path("org.opencontainers.image.revision").asText()).matches("[0-9a-f]{40}");
      assertThat(labels.path("org.opencontainers.image.source").asText())
          .isEqualTo(chart.path("sources").path(0).asText());
    }
  }

  @Test
  void theOperatorRunsAsNonrootOnTheBasesJava25Runtime() throws IOException {
    CommandResult identity = run(operator, List.of(), "sh", "-c", "id -un; id -u; java -version");
    assertThat(identity.stdout().lines()).containsExactly("nonroot", "65532");
    assertThat(identity.stderr()).contains("openjdk version \"25.");

    CommandResult help = run(operator, List.of(), command(operator, "--help"));
    assertThat(help.stdout()).contains("Usage: cni-operator");
  }

  @Test
  void theAgentsEntrypointRunsTheAgentWithTheArgumentsThatFollow() throws IOException {
    CommandResult help =
        run(
            agent,
            List.of("--privileged", "--env", "JAVA_TOOL_OPTIONS=-Xmx96m"),
            command(agent, "--help"));
    assertThat(help.stdout()).contains("Usage: cni-node-agent").contains("cni");
    assertThat(help.stderr())
        .contains("iptables mode nft")
        .contains("Picked up JAVA_TOOL_OPTIONS: -Xmx96m");
  }

  @Test
  void thePluginsThatCallIptablesWorkInTheAgentImage() throws IOException {
    String conflist =
        """
        {"cniVersion": "1.0.0", "name": "masq", "plugins": [
          {"type": "bridge", "bridge": "masq0", "isGateway": true, "ipMasq": true,
           "ipam": {"type": "host-local", "dataDir": "/tmp/ipam",
                    "ranges": [[{"subnet": "10.231.7.0/24"}]]}},
          {"type": "portmap", "capabilities": {"portMappings": true}},
          {"type": "firewall", "backend": "iptables"}]}
        """;
    String cni = String.join(" ", command(agent, "cni"));
    String script =
        """
        set -e
        mkdir -p /tmp/net.d
        echo '%2$s' > /tmp/net.d/10-masq.conflist
        ip netns add pod
        export NETCONFPATH=/tmp/net.d CNI_PATH=/opt/cni-node-agent/plugins
        export CAP_ARGS='{"portMappings": [{"hostPort": 8080, "containerPort": 80, "protocol": "tcp"}]}'
        %1$s add masq /run/netns/pod
        %1$s check masq /run/netns/pod
        echo "rules after add: $(iptables-save | grep -c 'masq.. id: ' || true)"
        %1$s del masq /run/netns/pod
        echo "rules after del: $(iptables-save | grep -c 'masq.. id: ' || true)"
        """
            .formatted(cni, conflist);
    // The rules of this attachment carry its network name and container id in a comment; the
    // chains the plugins share (CNI-HOSTPORT-*, CNI-FORWARD) stay after DEL, as they should.
    CommandResult result = run(agent, List.of("--privileged"), "sh", "-c", script);
    assertThat(result.stdout()).contains("\"10.231.7.").containsPattern("rules after add: [1-9]");
    assertThat(result.stdout()).contains("rules after del: 0");
  }

  @Test
  void theAgentPicksNftWhenNoBackendHasRules() {
    CommandResult version =
        run(agent, List.of("--privileged"), ENTRYPOINT, "iptables", "--version");
    assertThat(version.stdout()).contains("(nf_tables)");
    assertThat(version.stderr()).contains("rules seen: legacy 0, nft 0");
  }

  @Test
  void theAgentPicksLegacyWhenTheHostsRulesAreLegacy() {
    CommandResult version =
        run(
            agent,
            List.of("--privileged"),
            "sh",
            "-c",
            "iptables-legacy -A INPUT -j ACCEPT && exec " + ENTRYPOINT + " iptables --version");
    assertThat(version.stdout()).contains("(legacy)");
    assertThat(version.stderr()).contains("iptables mode legacy (update-alternatives;");
  }

  @Test
  void underTheChartsReadOnlyRootTheChoiceReachesThePluginsThroughPath() {
    CommandResult version =
        run(
            agent,
            List.of(
                "--privileged",
                "--read-only",
                "--mount",
                "type=tmpfs,src=tmpfs,dst=/tmp,options=rw:nosuid:nodev"),
            "sh",
            "-c",
            "iptables-legacy -A INPUT -j ACCEPT && exec "
                + ENTRYPOINT
                + " sh -c 'iptables --version; echo PATH=$PATH'");
    assertThat(version.stdout())
        .contains("(legacy)")
        .contains("PATH=/tmp/cni-node-agent-iptables:");
    assertThat(version.stderr()).contains("links in /tmp/cni-node-agent-iptables");
  }

  @Test
  void eachImagesSbomListsExactlyTheJarsItRuns() throws IOException {
    for (ProductImage image : List.of(operator, agent)) {
      String module = image == operator ? "operator" : "node-agent";
      JsonNode sbom = readJson(run(image, List.of(), "cat", SBOM_DIR + module + ".cdx.json"));
      assertThat(sbom.path("bomFormat").asText()).isEqualTo("CycloneDX");
      assertThat(sbom.path("specVersion").asText()).isEqualTo("1.6");
      assertThat(sbom.path("metadata").path("component").path("name").asText()).isEqualTo(module);

      Map<String, String> versions = new TreeMap<>();
      Set<String> jars = new TreeSet<>();
      for (JsonNode c : sbom.path("components")) {
        versions.put(
            c.path("group").asText() + ":" + c.path("name").asText(), c.path("version").asText());
        jars.add(jarName(c));
      }
      assertThat(versions)
          .containsEntry("io.fabric8:kubernetes-client", FABRIC8_VERSION)
          .containsEntry("com.fasterxml.jackson.core:jackson-databind", JACKSON_VERSION);
      // Equal sets: a jar the SBOM lacks, or an SBOM left over from an older build, fails here.
      Set<String> inImage =
          new TreeSet<>(run(image, List.of(), "ls", "/app/libs").stdout().lines().toList());
      assertThat(jars)
          .as("the jars %s's SBOM lists, and those in /app/libs", module)
          .isEqualTo(inImage);
    }
  }

  @Test
  void theAgentImagesSbomNamesThePluginsItBundlesWithTheirGoModules() throws IOException {
    JsonNode sbom = readJson(run(agent, List.of(), "cat", SBOM_DIR + "cni-plugins.cdx.json"));
    JsonNode module = sbom.path("metadata").path("component");
    assertThat(module.path("name").asText()).isEqualTo("github.com/containernetworking/plugins");
    assertThat(module.path("version").asText()).matches("v\\d+\\.\\d+\\.\\d+");

    Map<String, String> binaries = new TreeMap<>();
    Set<String> libraries = new TreeSet<>();
    for (JsonNode c : sbom.path("components")) {
      if (c.path("type").asText().equals("application")) {
        assertThat(c.path("version").asText()).isEqualTo(module.path("version").asText());
        binaries.put(c.path("name").asText(), c.path("hashes").path(0).path("content").asText());
      } else {
        libraries.add(c.path("name").asText());
      }
    }
    assertThat(libraries).contains("github.com/containernetworking/cni", "stdlib");
    Map<String, String> inImage = new TreeMap<>();
    run(agent, List.of(), "sh", "-c", "cd " + PLUGIN_DIR + " && sha256sum *")
        .stdout()
        .lines()
        .map(line -> line.split(" +"))
        .forEach(f -> inImage.put(f[1], f[0]));
    assertThat(binaries)
        .as("the plugins and their sha256, in the SBOM and in the image")
        .isEqualTo(inImage);
  }

  @Test
  void eachBasesSbomListsExactlyTheDebianPackagesDpkgHasInstalled()
      throws IOException, MalformedPackageURLException {
    for (ProductImage image : List.of(operator, agent)) {
      JsonNode sbom = readJson(run(image, List.of(), "cat", SBOM_DIR + "debian-packages.cdx.json"));
      assertThat(sbom.path("bomFormat").asText()).isEqualTo("CycloneDX");
      assertThat(sbom.path("specVersion").asText()).isEqualTo("1.6");
      String distro =
          "debian-"
              + run(image, List.of(), "sh", "-c", ". /etc/os-release && echo $VERSION_ID")
                  .stdout()
                  .strip();

      Set<String> installed = installedDebianPackages(image);
      // Equal sets: a package the SBOM lacks, or one it lists that dpkg has not installed, fails.
      assertThat(sbomDebianPackages(sbom, distro))
          .as("the Debian packages the base's SBOM lists, against those dpkg has installed")
          .containsExactlyInAnyOrderElementsOf(installed);
      assertThat(installed).anyMatch(p -> p.startsWith("openjdk-25-jre-headless "));
      if (image == agent) {
        assertThat(installed)
            .anyMatch(p -> p.startsWith("iptables "))
            .anyMatch(p -> p.startsWith("nftables "));
      }

      // A licence is the one the package's machine-readable copyright file declares.
      String bashLicence = "";
      for (JsonNode c : sbom.path("components")) {
        if (c.path("name").asText().equals("bash")) {
          bashLicence = c.path("licenses").path(0).path("license").path("name").asText();
        }
      }
      assertThat(bashLicence).as("bash's licence in the SBOM").isNotEmpty();
      assertThat(run(image, List.of(), "cat", "/usr/share/doc/bash/copyright").stdout())
          .contains("License: " + bashLicence);
    }
  }

  /** "name version architecture" of each Debian package dpkg has installed in {@code image}. */
  private static Set<String> installedDebianPackages(ProductImage image) {
    String query =
        "dpkg-query -W -f '${db:Status-Status} ${Package} ${Version} ${Architecture}\\n'";
    return run(image, List.of(), "sh", "-c", query)
        .stdout()
        .lines()
        .filter(line -> line.startsWith("installed "))
        .map(line -> line.substring("installed ".length()))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /**
   * "name version architecture" of each component of a Debian SBOM, whose purl must say the same
   * name and version, of Debian's release {@code distro}.
   */
  private static Set<String> sbomDebianPackages(JsonNode sbom, String distro)
      throws MalformedPackageURLException {
    Set<String> listed = new TreeSet<>();
    for (JsonNode c : sbom.path("components")) {
      String name = c.path("name").asText();
      String version = c.path("version").asText();
      PackageURL purl = new PackageURL(c.path("purl").asText());
      assertThat(purl.getType()).as("%s's purl", name).isEqualTo("deb");
      assertThat(purl.getNamespace()).as("%s's purl", name).isEqualTo("debian");
      assertThat(purl.getName()).as("%s's purl", name).isEqualTo(name);
      assertThat(purl.getVersion()).as("%s's purl", name).isEqualTo(version);
      assertThat(purl.getQualifiers()).as("%s's purl", name).containsEntry("distro", distro);
      listed.add(name + " " + version + " " + purl.getQualifiers().get("arch"));
    }
    return listed;
  }

  /** The file name Jib gives a component's jar in /app/libs. */
  private static String jarName(JsonNode component) {
    Matcher classifier = CLASSIFIER.matcher(component.path("purl").asText());
    return component.path("name").asText()
        + "-"
        + component.path("version").asText()
        + (classifier.find() ? "-" + classifier.group(1) : "")
        + ".jar";
  }

  private static JsonNode readJson(CommandResult result) throws IOException {
    return new ObjectMapper().readTree(result.stdout());
  }

  /** The image's entrypoint (its config's {@code Entrypoint}) followed by {@code args}. */
  private static String[] command(ProductImage image, String... args) throws IOException {
    JsonNode entrypoint = config(image).path("config").path("Entrypoint");
    List<String> command = new ArrayList<>();
    entrypoint.forEach(arg -> command.add(arg.asText()));
    command.addAll(List.of(args));
    return command.toArray(String[]::new);
  }

  /** The image's config, as its tarball's {@code manifest.json} names it. */
  private static JsonNode config(ProductImage image) throws IOException {
    String manifest = extract(image.tarball(), "manifest.json");
    String configName = new ObjectMapper().readTree(manifest).path(0).path("Config").asText();
    return new ObjectMapper().readTree(extract(image.tarball(), configName));
  }

  private static JsonNode chart() throws IOException {
    return new YAMLMapper()
        .readTree(ToolPaths.repoRoot().resolve("charts/cni-operator/Chart.yaml").toFile());
  }

  private static String extract(Path tarball, String entry) {
    return Commands.run("tar", "-xOf", tarball.toString(), entry)
        .orThrow("tar -xOf " + tarball + " " + entry)
        .stdout();
  }

  /**
   * {@code ctr run --rm} of {@code image} with {@code command}, in a new network namespace. The
   * command writes its stdout and stderr into files of a directory bound into the container, read
   * once it has exited: ctr's forwarding of a task's output through fifos lost the whole stderr of
   * a {@code java -version} that ended the task (a run of 2026-12-07), and an SBOM's JSON is larger
   * still.
   */
  private static CommandResult run(ProductImage image, List<String> flags, String... command) {
    String name = TestNames.unique("img");
    Path out = testDir.resolve(name);
    try {
      Files.createDirectories(out);
      // The images run as nonroot: the directory is theirs to write.
      Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwxrwxrwx"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> args = new ArrayList<>(List.of("--rm"));
    args.addAll(List.of("--snapshotter", containerd.snapshotter()));
    args.addAll(List.of("--mount", "type=bind,src=" + out + ",dst=/out,options=rbind:rw"));
    args.addAll(flags);
    args.add(image.reference());
    args.add(name);
    args.addAll(List.of("sh", "-c", "exec \"$@\" >/out/stdout 2>/out/stderr", "sh"));
    args.addAll(List.of(command));
    CommandResult ctr = containerd.ctrRun(args.toArray(String[]::new));
    try {
      CommandResult result =
          new CommandResult(
              ctr.exitCode(),
              Files.readString(out.resolve("stdout")),
              Files.readString(out.resolve("stderr")) + ctr.stderr());
      return result.orThrow("ctr run " + String.join(" ", args));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "ctr run " + String.join(" ", args) + " left no output (ctr: " + ctr + ")", e);
    }
  }
}
