package dev.cnioperator.agent.conflist;

import dev.cnioperator.agent.conflist.ChainAction.Append;
import dev.cnioperator.agent.conflist.ChainAction.Drop;
import dev.cnioperator.agent.conflist.ChainAction.InPlace;
import dev.cnioperator.agent.conflist.ChainAction.PlaceDropIns;
import dev.cnioperator.agent.conflist.ChainAction.RemoveDropIns;
import dev.cnioperator.agent.conflist.ChainAction.Unappend;
import dev.cnioperator.agent.conflist.ChainAction.Waiting;
import dev.cnioperator.agent.host.AppendedChain;
import dev.cnioperator.agent.host.CreatedDirectories;
import dev.cnioperator.agent.host.DropInStore;
import dev.cnioperator.agent.host.DropIns;
import dev.cnioperator.agent.host.HostFiles;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.ManifestException;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.cni.io.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out {@link ChainSync}'s actions on other products' files. The manifest is saved before a
 * file is renamed into place, so a kill at any point leaves the entries recorded and taken out
 * later. The file is read again just before the write and left alone when it changed since the pass
 * read it (its product is writing it): the next pass starts over from what is there.
 */
public final class ChainApplier {
  private static final Logger LOG = LoggerFactory.getLogger(ChainApplier.class);

  /**
   * A file of the agent's own that it writes and removes in the runtime's directory after changing
   * drop-ins: neither containerd nor CRI-O watches a network's drop-in directory, and both reload
   * their networks on a write, rename or removal in the directory itself (containerd ignores a bare
   * create). No runtime reads it: libcni loads only .conf, .conflist and .json files.
   */
  static final String RELOAD_FILE = ".cni-operator-reload";

  private final HostFiles files;
  private final HostPaths paths;
  private final RecordedWrites writes;
  private final DropInStore dropInStore;

  public ChainApplier(HostFiles files, ManifestStore store, HostPaths paths) {
    this.files = files;
    this.paths = paths;
    this.writes = new RecordedWrites(files, store);
    this.dropInStore = new DropInStore(files, paths.dropInsFile());
  }

  /**
   * What the pass did.
   *
   * @param outcomes one per desired network
   * @param chains by network, the content of the file that holds its entries now: what the runtime
   *     runs for pods of the network, and what the probe proves
   * @param passing true when something was left for a moment's state of a file (half-written, or
   *     changed while the agent was writing it): worth a new look at once
   */
  public record Applied(
      List<NetworkOutcome> outcomes, Map<String, byte[]> chains, boolean passing) {
    public static final Applied NONE = new Applied(List.of(), Map.of(), false);
  }

  public Applied apply(List<ChainAction> actions, Manifest manifest) {
    return apply(actions, manifest, DropIns.NONE);
  }

  /**
   * Carries out {@code actions}; {@code manifest} and {@code dropIns} are the records they were
   * planned on. After a change of drop-ins, the runtime is made to reload its networks.
   */
  public Applied apply(List<ChainAction> actions, Manifest manifest, DropIns dropIns) {
    Step step = new Step(manifest, dropIns);
    actions.forEach(a -> step.current = a.accept(step));
    if (step.reload) {
      reload();
    }
    return new Applied(step.outcomes, step.chains, step.passing);
  }

  /** An event in the runtime's directory, on a file no runtime reads, so that it reloads. */
  private void reload() {
    Path file = paths.confDir().resolve(RELOAD_FILE);
    try {
      files.writeAtomically(file, Instant.now().toString().getBytes(StandardCharsets.UTF_8), false);
      files.delete(file);
      LOG.info("event=runtime-reload-caused file={}", file);
    } catch (IOException e) {
      // The runtime loads the drop-ins at the next change in the directory, whoever makes it.
      LOG.warn("event=runtime-reload-failed file={} error=\"{}\"", file, e.getMessage());
    }
  }

  private final class Step implements ChainAction.Visitor<Manifest> {
    Manifest current;
    DropIns dropIns;
    final List<NetworkOutcome> outcomes = new ArrayList<>();
    final Map<String, byte[]> chains = new HashMap<>();
    boolean passing;
    boolean reload;

    Step(Manifest current, DropIns dropIns) {
      this.current = current;
      this.dropIns = dropIns;
    }

    @Override
    public Manifest placeDropIns(PlaceDropIns p) {
      DesiredConflist d = p.desired();
      Path dir = paths.confDir().resolve(p.target());
      DropIns.Files now = new DropIns.Files(p.target(), shas(p.files()));
      String fileSha = null;
      try {
        fileSha = files.sha256(paths.confDir().resolve(p.targetFile())).orElse(null);
        if (!p.write().isEmpty() || !p.stale().isEmpty()) {
          new CreatedDirectories(files, dir, paths.createdDropInDirectoriesFile()).make();
          // Recorded first, the stale files with the new: a kill at any point leaves every file
          // the agent may have written named, and taken out later.
          SortedMap<String, String> both = new TreeMap<>(now.files());
          dropIns
              .of(d.network())
              .ifPresent(w -> p.stale().forEach(n -> both.put(n, w.files().get(n))));
          dropInStore.save(dropIns.with(d.network(), new DropIns.Files(p.target(), both)));
          for (Map.Entry<String, byte[]> f : p.write().entrySet()) {
            files.writeAtomically(dir.resolve(f.getKey()), f.getValue(), false);
          }
          for (String stale : p.stale()) {
            files.delete(dir.resolve(stale));
          }
          reload = true;
          LOG.info(
              "event=chain-dropped-in network={} target={} written={} removed={} restored={}",
              d.network(),
              p.target(),
              p.write().keySet(),
              p.stale(),
              p.restored());
        }
        if (!dropIns.of(d.network()).equals(Optional.of(now))) {
          dropIns = dropIns.with(d.network(), now);
          dropInStore.save(dropIns);
        }
      } catch (IOException | ManifestException e) {
        LOG.warn(
            "event=chain-drop-in-failed network={} dir={} error=\"{}\"",
            d.network(),
            dir,
            e.getMessage());
        outcomes.add(
            NetworkOutcome.failed(
                d, null, "cannot write drop-ins in " + dir + ": " + e.getMessage()));
        return current;
      }
      outcomes.add(
          NetworkOutcome.droppedIn(d, p.targetFile(), fileSha, p.files().keySet(), p.restored()));
      chains.put(d.network(), p.runs());
      return current;
    }

    @Override
    public Manifest removeDropIns(RemoveDropIns r) {
      Path dir = paths.confDir().resolve(r.target());
      try {
        for (String name : r.files()) {
          files.delete(dir.resolve(name));
        }
        dropIns = dropIns.without(r.network());
        dropInStore.save(dropIns);
      } catch (IOException | ManifestException e) {
        LOG.warn(
            "event=chain-drop-in-remove-failed network={} dir={} error=\"{}\"",
            r.network(),
            dir,
            e.getMessage());
        return current;
      }
      new CreatedDirectories(files, dir, paths.createdDropInDirectoriesFile()).removeEmpty();
      reload |= !r.files().isEmpty();
      LOG.info(
          "event=chain-drop-ins-removed network={} dir={} removed={} left-changed={}",
          r.network(),
          dir,
          r.files(),
          r.changed());
      return current;
    }

    @Override
    public Manifest append(Append a) {
      DesiredConflist d = a.desired();
      try {
        Optional<String> changed = changedSince(a.fileName(), a.readSha256());
        if (changed.isPresent()) {
          outcomes.add(NetworkOutcome.failed(d, null, changed.get()));
          passing = true;
          return current;
        }
        String sha = Sha256.hex(a.content());
        Manifest next =
            current.withChain(d.network(), new AppendedChain(a.fileName(), a.entries(), sha));
        writes.write(next, file(a.fileName()), a.content());
        LOG.info(
            "event=chain-appended network={} target={} file={} sha256={} reapplied={}",
            d.network(),
            d.appendTo(),
            a.fileName(),
            sha,
            a.reapplied());
        outcomes.add(NetworkOutcome.appendedTo(d, a.fileName(), sha, a.reapplied(), a.note()));
        chains.put(d.network(), a.runs());
        return next;
      } catch (IOException | ManifestException e) {
        LOG.warn(
            "event=chain-append-failed network={} file={} error=\"{}\"",
            d.network(),
            a.fileName(),
            e.getMessage());
        outcomes.add(
            NetworkOutcome.failed(d, null, "cannot write " + a.fileName() + ": " + e.getMessage()));
        return current;
      }
    }

    @Override
    public Manifest inPlace(InPlace p) {
      DesiredConflist d = p.desired();
      String sha = Sha256.hex(p.file());
      outcomes.add(NetworkOutcome.appendedTo(d, p.fileName(), sha, false, p.note()));
      chains.put(d.network(), p.runs());
      Optional<AppendedChain> recorded = current.chain(d.network());
      AppendedChain now = new AppendedChain(p.fileName(), p.entries(), sha);
      // Found in place without a record (a manifest lost, or the entries already there): record
      // them, so that they come out when the declaration goes.
      return recorded.isPresent() && recorded.get().equals(now)
          ? current
          : saved(current.withChain(d.network(), now));
    }

    @Override
    public Manifest waiting(Waiting w) {
      LOG.info(
          "event=chain-waiting network={} target={} reason=\"{}\"",
          w.desired().network(),
          w.desired().appendTo(),
          w.why());
      outcomes.add(NetworkOutcome.failed(w.desired(), null, w.why()));
      passing |= w.passing();
      return current;
    }

    @Override
    public Manifest unappend(Unappend u) {
      try {
        if (changedSince(u.fileName(), u.readSha256()).isPresent()) {
          return current;
        }
        files.writeAtomically(file(u.fileName()), u.content(), false);
      } catch (IOException e) {
        LOG.warn(
            "event=chain-remove-failed network={} file={} error=\"{}\"",
            u.network(),
            u.fileName(),
            e.getMessage());
        return current;
      }
      LOG.info("event=chain-removed network={} file={}", u.network(), u.fileName());
      return forgetUnlessMoved(u.network(), u.fileName());
    }

    @Override
    public Manifest later(ChainAction.Later l) {
      LOG.info(
          "event=chain-remove-later network={} file={} reason=\"{}\"",
          l.network(),
          l.fileName(),
          l.why());
      passing = true;
      return current;
    }

    @Override
    public Manifest contested(ChainAction.Contested c) {
      DesiredConflist d = c.desired();
      LOG.warn(
          "event=chain-contested network={} target={} file={} reason=\"{}\"",
          d.network(),
          d.appendTo(),
          c.fileName(),
          c.why());
      outcomes.add(NetworkOutcome.contested(d, c.fileName(), c.why()));
      return current;
    }

    @Override
    public Manifest drop(Drop d) {
      LOG.info("event=chain-forgotten network={} reason=\"{}\"", d.network(), d.why());
      return saved(current.withoutChain(d.network()));
    }

    /** After the entries left {@code fileName}: the record goes unless it names another file. */
    private Manifest forgetUnlessMoved(String network, String fileName) {
      Optional<AppendedChain> recorded = current.chain(network);
      return recorded.isPresent() && recorded.get().fileName().equals(fileName)
          ? saved(current.withoutChain(network))
          : current;
    }

    private Manifest saved(Manifest next) {
      return writes.saved(current, next);
    }
  }

  /** Why {@code fileName} is not written now: it changed since it was read. */
  private Optional<String> changedSince(String fileName, String readSha256) throws IOException {
    Optional<byte[]> now = files.read(file(fileName));
    if (now.isPresent() && Sha256.hex(now.get()).equals(readSha256)) {
      return Optional.empty();
    }
    return Optional.of(
        fileName + " changed while the agent was appending to it; read again on the next pass");
  }

  private Path file(String fileName) {
    return paths.confDir().resolve(fileName);
  }

  private static SortedMap<String, String> shas(SortedMap<String, byte[]> files) {
    SortedMap<String, String> shas = new TreeMap<>();
    files.forEach((name, content) -> shas.put(name, Sha256.hex(content)));
    return shas;
  }
}
