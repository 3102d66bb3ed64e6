package dev.cnioperator.cni.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.exec.CniArg;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultCacheTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path cacheDir;

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static CachedAttachment entry(String network, String container, String ifName) {
    return new CachedAttachment(
        network,
        container,
        ifName,
        "/var/run/netns/" + container,
        List.of(new CniArg("K8S_POD_NAME", "web-0"), new CniArg("K8S_POD_NAMESPACE", "default")),
        Map.of(
            "portMappings",
            json("[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}]")),
        "{\"cniVersion\":\"1.1.0\",\"name\":\"dbnet\",\"plugins\":[]}"
            .getBytes(StandardCharsets.UTF_8),
        json("{\"cniVersion\":\"1.1.0\",\"ips\":[{\"address\":\"10.200.0.5/24\"}]}"));
  }

  /** Writes a cache file by hand, as a runtime or an older libcni might have left it. */
  private Path cacheFile(String name, String json) throws IOException {
    Path file = cacheDir.resolve("results").resolve(name);
    Files.createDirectories(file.getParent());
    return Files.writeString(file, json);
  }

  @Test
  void writeThenReadGivesTheSameEntry() {
    ResultCache cache = new ResultCache(cacheDir);
    CachedAttachment written = entry("dbnet", "c1", "eth0");
    cache.write(written);
    assertThat(cache.read("dbnet", "c1", "eth0")).contains(written);
    assertThat(cache.read("dbnet", "c1", "eth1")).isEmpty();
  }

  @Test
  void fileHasLibcnisPathPermissionsAndFieldsInItsOrder() throws Exception {
    ResultCache cache = new ResultCache(cacheDir);
    cache.write(entry("dbnet", "c1", "eth0"));
    Path file = cacheDir.resolve("results/dbnet-c1-eth0");
    assertThat(file).exists();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
        .isEqualTo("rwx------");
    JsonNode root = JSON.readTree(file.toFile());
    List<String> keys = iterableToList(root.fieldNames());
    assertThat(keys)
        .containsExactly(
            "kind",
            "containerId",
            "config",
            "ifName",
            "networkName",
            "netns",
            "cniArgs",
            "capabilityArgs",
            "result");
    assertThat(root.get("kind").asText()).isEqualTo("cniCacheV1");
    assertThat(
            new String(
                Base64.getDecoder().decode(root.get("config").asText()), StandardCharsets.UTF_8))
        .contains("\"name\":\"dbnet\"");
    assertThat(root.get("cniArgs").toString())
        .isEqualTo("[[\"K8S_POD_NAME\",\"web-0\"],[\"K8S_POD_NAMESPACE\",\"default\"]]");
    // Nothing but the entry is left in the directory (the temporary file was renamed).
    try (var files = Files.list(file.getParent())) {
      assertThat(files).containsExactly(file);
    }
  }

  @Test
  void capabilityArgsAndResultAreWrittenWithSortedKeysAsGoMarshalsMaps() throws Exception {
    ResultCache cache = new ResultCache(cacheDir);
    cache.write(
        new CachedAttachment(
            "n",
            "c",
            "eth0",
            "",
            List.of(),
            new java.util.LinkedHashMap<>(
                Map.of("zeta", json("{\"b\":1,\"a\":[{\"y\":1,\"x\":2}]}"))),
            new byte[0],
            json(
                "{\"ips\":[],\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"e\",\"mac\":\"m\"}]}")));
    String text = Files.readString(cacheDir.resolve("results/n-c-eth0"));
    assertThat(text)
        .contains("\"capabilityArgs\":{\"zeta\":{\"a\":[{\"x\":2,\"y\":1}],\"b\":1}}")
        .contains(
            "\"result\":{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"mac\":\"m\",\"name\":\"e\"}],\"ips\":[]}");
  }

  @Test
  void numbersBeyondADoubleAreWrittenBackAsTheyWereRead() throws Exception {
    Path file =
        cacheFile(
            "dbnet-c1-eth0",
            "{\"kind\":\"cniCacheV1\",\"containerId\":\"c1\",\"ifName\":\"eth0\","
                + "\"networkName\":\"dbnet\",\"result\":{\"big\":1e400,\"small\":-1e-400,"
                + "\"exact\":0.10000000000000000001,\"zeros\":[1.0,0e+300],\"scale0\":[1e00,-0e0]}}");
    ResultCache cache = new ResultCache(cacheDir);
    CachedAttachment read = cache.read("dbnet", "c1", "eth0").orElseThrow();

    cache.write(read);

    assertThat(cache.read("dbnet", "c1", "eth0")).contains(read);
    assertThat(Files.readString(file))
        .contains(
            "\"big\":1E+400",
            "\"small\":-1E-400",
            "\"exact\":0.10000000000000000001",
            "\"zeros\":[1.0,0E+300]",
            "\"scale0\":[1E0,0E0]")
        .doesNotContain("Infinity");
  }

  @Test
  void anExponentNoNumberCanHoldIsACorruptEntryNamingTheFile() throws Exception {
    Path file =
        cacheFile(
            "dbnet-c1-eth0",
            "{\"kind\":\"cniCacheV1\",\"containerId\":\"c1\",\"ifName\":\"eth0\","
                + "\"networkName\":\"dbnet\",\"result\":{\"x\":1e2147483648}}");

    CniException e =
        catchThrowableOfType(
            CniException.class, () -> new ResultCache(cacheDir).read("dbnet", "c1", "eth0"));

    assertThat(e.code()).isEqualTo(CniErrorCode.DECODING_FAILURE.code());
    assertThat(e.getMessage()).contains(file.toString());
    assertThat(e.details()).contains("Exponent overflow");
  }

  @Test
  void emptyOptionalFieldsAreOmittedAsGoOmitempty() throws Exception {
    ResultCache cache = new ResultCache(cacheDir);
    cache.write(new CachedAttachment("n", "c", "eth0", "", List.of(), Map.of(), new byte[0], null));
    JsonNode root = JSON.readTree(cacheDir.resolve("results/n-c-eth0").toFile());
    assertThat(iterableToList(root.fieldNames()))
        .containsExactly("kind", "containerId", "config", "ifName", "networkName");
  }

  @Test
  void listReturnsOnlyTheNetworksV1EntriesAndSkipsWhatLibcniSkips() throws Exception {
    ResultCache cache = new ResultCache(cacheDir);
    cache.write(entry("dbnet", "c2", "eth0"));
    cache.write(entry("dbnet", "c1", "eth0"));
    cache.write(entry("other", "c1", "eth0"));
    Path results = cacheDir.resolve("results");
    Files.writeString(
        results.resolve("dbnet-legacy-eth0"), "{\"cniVersion\":\"0.4.0\",\"ips\":[]}");
    Files.writeString(results.resolve("dbnet-broken-eth0"), "{not json");
    Files.writeString(
        results.resolve("dbnet-noif-eth0"),
        "{\"kind\":\"cniCacheV1\",\"containerId\":\"noif\",\"ifName\":\"\",\"networkName\":\"dbnet\"}");
    assertThat(cache.list("dbnet"))
        .extracting(CachedAttachment::containerId)
        .containsExactly("c1", "c2");
    assertThat(cache.list("nothing")).isEmpty();
    assertThat(cache.listAll())
        .extracting(e -> e.networkName() + "/" + e.containerId())
        .containsExactly("dbnet/c1", "dbnet/c2", "other/c1");
    assertThat(new ResultCache(cacheDir.resolve("absent")).list("dbnet")).isEmpty();
  }

  @Test
  void unknownFieldsAreTolerated() throws Exception {
    Path file =
        cacheFile(
            "dbnet-c9-eth0",
            "{\"kind\":\"cniCacheV1\",\"containerId\":\"c9\",\"config\":\"e30=\",\"ifName\":\"eth0\","
                + "\"networkName\":\"dbnet\",\"netns\":\"/run/netns/x\",\"futureField\":{\"a\":1},"
                + "\"result\":{\"cniVersion\":\"1.0.0\"}}");
    CachedAttachment read = new ResultCache(cacheDir).read("dbnet", "c9", "eth0").orElseThrow();
    assertThat(read.netns()).isEqualTo("/run/netns/x");
    assertThat(new String(read.config(), StandardCharsets.UTF_8)).isEqualTo("{}");
    assertThat(read.result().get("cniVersion").asText()).isEqualTo("1.0.0");
  }

  @Test
  void legacyFileHoldingOnlyAResultIsReadAsThatResult() throws Exception {
    Path file =
        cacheFile(
            "dbnet-old-eth0",
            "{\"cniVersion\":\"0.3.1\",\"ips\":[{\"version\":\"4\",\"address\":\"10.200.0.9/24\"}]}");
    CachedAttachment read = new ResultCache(cacheDir).read("dbnet", "old", "eth0").orElseThrow();
    assertThat(read.containerId()).isEqualTo("old");
    assertThat(read.result().get("cniVersion").asText()).isEqualTo("0.3.1");
  }

  @Test
  void corruptFileIsADecodingFailureNamingTheFile() throws Exception {
    Path file =
        cacheFile(
            "dbnet-bad-eth0",
            "{\"kind\":\"cniCacheV1\",\"containerId\":\"bad\",\"cniArgs\":\"x\"}");
    CniException e =
        catchThrowableOfType(
            CniException.class, () -> new ResultCache(cacheDir).read("dbnet", "bad", "eth0"));
    assertThat(e.code()).isEqualTo(CniErrorCode.DECODING_FAILURE.code());
    assertThat(e.msg()).contains(file.toString());
  }

  @Test
  void contentAfterTheObjectIsCorruptAsGosUnmarshalFindsIt() throws Exception {
    ResultCache cache = new ResultCache(cacheDir);
    cache.write(entry("dbnet", "c1", "eth0"));
    Path file = cacheDir.resolve("results/dbnet-c1-eth0");
    Files.writeString(file, Files.readString(file) + "{}");

    CniException e =
        catchThrowableOfType(CniException.class, () -> cache.read("dbnet", "c1", "eth0"));
    assertThat(e.code()).isEqualTo(CniErrorCode.DECODING_FAILURE.code());
    assertThat(cache.list("dbnet")).isEmpty();
  }

  @Test
  void removeDeletesTheEntryOnce() {
    ResultCache cache = new ResultCache(cacheDir);
    cache.write(entry("dbnet", "c1", "eth0"));
    assertThat(cache.remove("dbnet", "c1", "eth0")).isTrue();
    assertThat(cache.remove("dbnet", "c1", "eth0")).isFalse();
    assertThat(cache.read("dbnet", "c1", "eth0")).isEmpty();
  }

  @Test
  void pathPartsThatCouldEscapeTheDirectoryAreRefused() {
    CniException e =
        catchThrowableOfType(
            CniException.class, () -> new ResultCache(cacheDir).resultPath("../x", "c", "eth0"));
    assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_ENVIRONMENT.code());
  }

  private static List<String> iterableToList(java.util.Iterator<String> it) {
    List<String> out = new java.util.ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
