package dev.cnioperator.agent.plugin;

import dev.cnioperator.agent.host.HostFiles;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.ManifestException;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.agent.plugin.BinaryAction.Install;
import dev.cnioperator.agent.plugin.BinaryAction.Keep;
import dev.cnioperator.agent.plugin.BinaryAction.Owner;
import dev.cnioperator.agent.plugin.BinaryAction.Unavailable;
import dev.cnioperator.cni.io.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out {@link PluginBinarySync}'s actions in the bin dir: copies bundled binaries, downloads
 * CniPlugin binaries to a temporary file, verifies their sha256 and only then renames them into
 * place. The manifest names a binary before it is renamed in, as for conflists.
 */
public final class PluginInstaller {
  private static final Logger LOG = LoggerFactory.getLogger(PluginInstaller.class);
  private static final Duration DOWNLOAD_TIMEOUT = Duration.ofMinutes(2);

  private final HostFiles files;
  private final ManifestStore store;
  private final Path binDir;
  private final Path bundledDir;
  private final Supplier<HttpClient> newHttpClient;
  private final InstallBackoff backoff;
  private HttpClient http;

  /**
   * {@code newHttpClient} is called once, for the first download: most nodes never download, and
   * building a JDK client loads the JDK's default trust store, on the way to the first conflist.
   */
  public PluginInstaller(
      HostFiles files,
      ManifestStore store,
      Path binDir,
      Path bundledDir,
      Supplier<HttpClient> newHttpClient,
      Clock clock) {
    this.backoff = new InstallBackoff(clock);
    this.files = files;
    this.store = store;
    this.binDir = binDir;
    this.bundledDir = bundledDir;
    this.newHttpClient = newHttpClient;
  }

  /**
   * What a pass did to the bin dir: one outcome per binary, without versions yet, and the manifest
   * as it was last saved.
   */
  public record Applied(List<PluginOutcome> outcomes, Manifest manifest) {}

  /** Applies {@code actions} to the node whose manifest is {@code manifest}. */
  public Applied apply(List<BinaryAction> actions, Manifest manifest) throws IOException {
    List<PluginOutcome> outcomes = new ArrayList<>();
    Manifest current = manifest;
    for (BinaryAction action : actions) {
      if (action instanceof Install i) {
        Attempt attempt = install(i, current);
        current = attempt.manifest();
        boolean restored = attempt.failure().isEmpty() && i.reason().isDrift();
        outcomes.add(onDisk(i.name(), attempt.failure().orElse(null), current, restored));
      } else if (action instanceof Keep k) {
        outcomes.add(onDisk(k.name(), null, current, false));
      } else if (action instanceof Unavailable u) {
        LOG.warn("event=plugin-unavailable plugin={} reason=\"{}\"", u.name(), u.message());
        outcomes.add(new PluginOutcome(u.name(), null, null, List.of(), u.message()));
      }
    }
    return new Applied(outcomes, current);
  }

  /** One install: the manifest as saved (with the binary once it was), and why it failed. */
  private record Attempt(Manifest manifest, Optional<String> failure) {}

  /** The binary as it is on disk now, whatever the pass did to it. */
  private PluginOutcome onDisk(String name, String error, Manifest manifest, boolean restored)
      throws IOException {
    String sha = files.sha256(binDir.resolve(name)).orElse(null);
    Owner owner = manifest.binary(name).isPresent() ? Owner.agent : Owner.external;
    return new PluginOutcome(name, sha, sha == null ? null : owner, List.of(), error, restored);
  }

  private String sourceOf(Install i) {
    return i.url() == null ? bundledDir.resolve(i.name()).toString() : i.url();
  }

  /**
   * Installs one binary; empty on success, else why it was refused (the old binary stays). A
   * refused or failed binary waits out its back-off before it is fetched again.
   */
  private Attempt install(Install i, Manifest manifest) throws IOException {
    String key = i.name() + " " + sourceOf(i) + " " + i.sha256();
    Optional<String> waiting = backoff.waiting(key);
    if (waiting.isPresent()) {
      return new Attempt(manifest, waiting);
    }
    Attempt attempt = tryInstall(i, manifest);
    if (attempt.failure().isPresent()) {
      return new Attempt(
          attempt.manifest(), Optional.of(backoff.failed(key, attempt.failure().get())));
    }
    backoff.succeeded(key);
    return attempt;
  }

  private Attempt tryInstall(Install i, Manifest manifest) throws IOException {
    Path target = binDir.resolve(i.name());
    Path temp = files.newTemporaryFile(binDir, i.name());
    // Once saved, the manifest names the binary whatever happens next (a rename may have happened
    // even when the directory's fsync after it failed).
    Manifest saved = manifest;
    try {
      String source = sourceOf(i);
      String actual = i.url() == null ? copyBundled(i.name(), temp) : download(i.url(), temp);
      if (!actual.equals(i.sha256())) {
        String message =
            "plugin "
                + i.name()
                + " from "
                + source
                + " has sha256 "
                + actual
                + " but "
                + i.sha256()
                + " was expected; refused, the old binary stays";
        LOG.warn(
            "event=plugin-refused plugin={} source={} expected={} actual={}",
            i.name(),
            source,
            i.sha256(),
            actual);
        return new Attempt(saved, Optional.of(message));
      }
      Manifest next = manifest.withBinary(i.name(), actual, source);
      store.save(next);
      saved = next;
      files.moveAtomically(temp, target, true, actual);
      LOG.info(
          "event=plugin-installed plugin={} source={} sha256={} reason={}",
          i.name(),
          source,
          actual,
          i.reason());
      return new Attempt(saved, Optional.empty());
    } catch (IOException | InterruptedException | ManifestException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.warn("event=plugin-install-failed plugin={} error=\"{}\"", i.name(), e.toString());
      return new Attempt(
          saved, Optional.of("plugin " + i.name() + " could not be installed: " + e.getMessage()));
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private String copyBundled(String name, Path temp) throws IOException {
    try (InputStream in = Files.newInputStream(bundledDir.resolve(name))) {
      return copyHashing(in, temp);
    }
  }

  private String download(String url, Path temp) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url)).timeout(DOWNLOAD_TIMEOUT).GET().build();
    HttpResponse<InputStream> response =
        http().send(request, HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = response.body()) {
      if (response.statusCode() != 200) {
        throw new IOException("GET " + url + " answered HTTP " + response.statusCode());
      }
      return copyHashing(in, temp);
    }
  }

  private synchronized HttpClient http() {
    if (http == null) {
      http = newHttpClient.get();
    }
    return http;
  }

  private static String copyHashing(InputStream in, Path temp) throws IOException {
    MessageDigest digest = Sha256.digest();
    try (OutputStream out = new DigestOutputStream(Files.newOutputStream(temp), digest)) {
      in.transferTo(out);
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
