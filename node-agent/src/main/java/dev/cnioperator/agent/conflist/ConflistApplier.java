package dev.cnioperator.agent.conflist;

import dev.cnioperator.agent.conflist.ConflistAction.Conflict;
import dev.cnioperator.agent.conflist.ConflistAction.Forget;
import dev.cnioperator.agent.conflist.ConflistAction.Hold;
import dev.cnioperator.agent.conflist.ConflistAction.Keep;
import dev.cnioperator.agent.conflist.ConflistAction.Reject;
import dev.cnioperator.agent.conflist.ConflistAction.Remove;
import dev.cnioperator.agent.conflist.ConflistAction.Write;
import dev.cnioperator.agent.host.CreatedDirectories;
import dev.cnioperator.agent.host.HostFiles;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.agent.host.ManagedFile;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.ManifestException;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.io.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out {@link ConflistSync}'s actions in the configuration directories. The manifest is
 * saved before a file is renamed into place and after one is deleted, so after a kill at any point
 * the manifest still names every file the agent may have written. A write that fails (a full disk,
 * say) fails only its network, which keeps its previous file and is reported Failed with the
 * reason.
 */
public final class ConflistApplier {
  private static final Logger LOG = LoggerFactory.getLogger(ConflistApplier.class);

  private final HostFiles files;
  private final ManifestStore store;
  private final HostPaths paths;
  private final CreatedDirectories multusDirs;
  private final RecordedWrites writes;

  /**
   * @param multusDirs Multus's directory, made with the parents it lacks before the first file is
   *     written there
   */
  public ConflistApplier(
      HostFiles files, ManifestStore store, HostPaths paths, CreatedDirectories multusDirs) {
    this.files = files;
    this.store = store;
    this.paths = paths;
    this.multusDirs = multusDirs;
    this.writes = new RecordedWrites(files, store);
  }

  /**
   * What the writes did.
   *
   * @param outcomes one per desired network, in action order
   * @param manifest the manifest as the writes left it (saved)
   */
  public record Applied(List<NetworkOutcome> outcomes, Manifest manifest) {}

  /** Applies {@code actions}, planned on {@code manifest}. */
  public Applied apply(List<ConflistAction> actions, Manifest manifest) {
    List<NetworkOutcome> outcomes = new ArrayList<>();
    Manifest current = manifest;
    for (ConflistAction action : actions) {
      current = action.accept(new Step(current, outcomes));
    }
    return new Applied(outcomes, current);
  }

  /** Carries out one action on the manifest as it is now; returns the manifest after it. */
  private final class Step implements ConflistAction.Visitor<Manifest> {
    private final Manifest current;
    private final List<NetworkOutcome> outcomes;

    Step(Manifest current, List<NetworkOutcome> outcomes) {
      this.current = current;
      this.outcomes = outcomes;
    }

    @Override
    public Manifest write(Write w) {
      DesiredConflist d = w.desired();
      try {
        Manifest next = ConflistApplier.this.write(w, current);
        String fileSha256 = next.conflist(d.directory(), d.fileName()).orElseThrow().sha256();
        outcomes.add(NetworkOutcome.applied(d, w.reason().isDrift(), w.carried(), fileSha256));
        return next;
      } catch (IOException | ManifestException e) {
        LOG.warn(
            "event=conflist-write-failed network={} file={} error=\"{}\"",
            d.network(),
            d.fileName(),
            e.getMessage());
        Manifest after = savedOrNot(current);
        outcomes.add(
            NetworkOutcome.failed(
                d, ownedSha(after, d), "cannot write " + d.fileName() + ": " + e.getMessage()));
        return after;
      }
    }

    @Override
    public Manifest keep(Keep k) {
      outcomes.add(NetworkOutcome.applied(k.desired(), false, k.appended(), k.fileSha256()));
      return current;
    }

    @Override
    public Manifest conflict(Conflict c) {
      LOG.warn(
          "event=conflist-conflict network={} file={} directory={}",
          c.desired().network(),
          c.desired().fileName(),
          c.desired().directory());
      outcomes.add(NetworkOutcome.conflict(c.desired(), c.message()));
      return current;
    }

    @Override
    public Manifest reject(Reject r) {
      LOG.warn(
          "event=conflist-rejected network={} reason=\"{}\"", r.desired().network(), r.message());
      outcomes.add(NetworkOutcome.failed(r.desired(), null, r.message()));
      return current;
    }

    @Override
    public Manifest hold(Hold h) {
      outcomes.add(NetworkOutcome.failed(h.desired(), ownedSha(current, h.desired()), h.message()));
      return current;
    }

    @Override
    public Manifest contested(ConflistAction.Contested c) {
      LOG.warn(
          "event=conflist-contested network={} file={} directory={} reason=\"{}\"",
          c.desired().network(),
          c.desired().fileName(),
          c.desired().directory(),
          c.message());
      outcomes.add(NetworkOutcome.contested(c.desired(), c.message()));
      return current;
    }

    @Override
    public Manifest remove(Remove r) {
      return ConflistApplier.this.remove(r.directory(), r.fileName(), current);
    }

    @Override
    public Manifest forget(Forget f) {
      LOG.info(
          "event=conflist-forgotten file={} directory={} reason=\"{}\"",
          f.fileName(),
          f.directory(),
          f.why());
      return writes.saved(current, current.withoutConflist(f.directory(), f.fileName()));
    }
  }

  private Manifest write(Write w, Manifest manifest) throws IOException {
    DesiredConflist d = w.desired();
    if (d.directory() == ConfigDirectory.Multus) {
      makeMultusDir();
    }
    byte[] content = w.content();
    Manifest next =
        manifest.withConflist(
            d.directory(), d.fileName(), Sha256.hex(content), d.network(), d.content());
    writes.write(next, file(d), content);
    LOG.info(
        "event=conflist-written network={} file={} directory={} sha256={} reason={} carried={}",
        d.network(),
        d.fileName(),
        d.directory(),
        d.sha256(),
        w.reason(),
        w.carried().types());
    return next;
  }

  private void makeMultusDir() throws IOException {
    try {
      multusDirs.make();
    } catch (IOException e) {
      throw new IOException(
          "cannot make Multus's directory " + paths.multusConfDir() + ": " + e.getMessage(), e);
    }
  }

  /** The manifest as it is on disk after a failed write: saved with the new entry, or not. */
  private Manifest savedOrNot(Manifest before) {
    try {
      return store.load();
    } catch (ManifestException e) {
      return before;
    }
  }

  private Manifest remove(ConfigDirectory dir, String fileName, Manifest manifest) {
    Path file = paths.confDir(dir).resolve(fileName);
    try {
      files.delete(file);
    } catch (IOException e) {
      LOG.warn("event=conflist-remove-failed file={} error=\"{}\"", file, e.getMessage());
      return manifest;
    }
    LOG.info("event=conflist-removed file={} directory={}", fileName, dir);
    return writes.saved(manifest, manifest.withoutConflist(dir, fileName));
  }

  /** Where {@code d}'s file is. */
  private Path file(DesiredConflist d) {
    return paths.confDir(d.directory()).resolve(d.fileName());
  }

  /**
   * The sha256 of the agent's own content in its file on disk for {@code d} (the revision it holds,
   * whatever others appended), or null.
   */
  private String ownedSha(Manifest manifest, DesiredConflist d) {
    try {
      byte[] disk = files.read(file(d)).orElse(null);
      Optional<ManagedFile> owned = manifest.conflist(d.directory(), d.fileName());
      if (disk == null || owned.isEmpty()) {
        return null;
      }
      if (ConflistSync.appendedToOwn(owned.get(), disk).isPresent()) {
        return Sha256.hex(owned.get().content().getBytes(StandardCharsets.UTF_8));
      }
      String sha = Sha256.hex(disk);
      return owned.get().isOwnVersion(sha) ? sha : null;
    } catch (IOException e) {
      return null;
    }
  }
}
