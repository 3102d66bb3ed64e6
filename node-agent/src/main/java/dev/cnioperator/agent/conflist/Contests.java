package dev.cnioperator.agent.conflist;

import dev.cnioperator.agent.conflist.ChainAction.Append;
import dev.cnioperator.agent.conflist.ChainAction.Drop;
import dev.cnioperator.agent.conflist.ChainAction.InPlace;
import dev.cnioperator.agent.conflist.ChainAction.Later;
import dev.cnioperator.agent.conflist.ChainAction.Unappend;
import dev.cnioperator.agent.conflist.ChainAction.Waiting;
import dev.cnioperator.agent.conflist.ConflistAction.Conflict;
import dev.cnioperator.agent.conflist.ConflistAction.Forget;
import dev.cnioperator.agent.conflist.ConflistAction.Hold;
import dev.cnioperator.agent.conflist.ConflistAction.Keep;
import dev.cnioperator.agent.conflist.ConflistAction.Reject;
import dev.cnioperator.agent.conflist.ConflistAction.Remove;
import dev.cnioperator.agent.conflist.ConflistAction.Write;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one bound on what the agent puts back, for every placement ({@link ContestedFiles}): its own
 * file restored after someone changed, removed or renamed it, and its entries re-appended to
 * another product's file after that product rewrote the file without them. Either, taken away again
 * soon after each of the last restores, is contested: not put back for a while, reported with what
 * was seen. Without the bound, a party that rewrites on every change it sees (Cilium's exclusive
 * rename; a primary that renders its file afresh, dropping foreign entries) and the agent's own
 * directory watch would trade the file ten times a second, for ever.
 */
public final class Contests {
  private final ContestedFiles contested = new ContestedFiles();
  private final Clock clock;

  public Contests(Clock clock) {
    this.clock = clock;
  }

  /**
   * The own-file actions with each restore the bound holds back replaced by {@link
   * ConflistAction.Contested}; tells the bound which files were found as the agent wrote them.
   *
   * @param seen what happened to the file a restore puts back: "removed", "renamed to x", "changed"
   */
  public List<ConflistAction> own(List<ConflistAction> planned, Function<Write, String> seen) {
    OwnFile step = new OwnFile(clock.instant(), seen);
    return planned.stream().map(a -> a.accept(step)).toList();
  }

  /**
   * The chain actions with each re-append the bound holds back replaced by {@link
   * ChainAction.Contested}; tells the bound which chains were found in place.
   */
  public List<ChainAction> chains(List<ChainAction> planned) {
    Chain step = new Chain(clock.instant());
    return planned.stream().map(a -> a.accept(step)).toList();
  }

  private final class OwnFile implements ConflistAction.Visitor<ConflistAction> {
    private final Instant now;
    private final Function<Write, String> seen;

    OwnFile(Instant now, Function<Write, String> seen) {
      this.now = now;
      this.seen = seen;
    }

    @Override
    public ConflistAction write(Write w) {
      if (!w.reason().isDrift()) {
        return w;
      }
      DesiredConflist d = w.desired();
      Optional<ContestedFiles.Contest> c =
          contested.restore(
              new ContestedFiles.Key(d.directory(), d.fileName()), seen.apply(w), now);
      return c.<ConflistAction>map(
              x ->
                  new ConflistAction.Contested(
                      d,
                      d.fileName()
                          + " was "
                          + x.seen()
                          + " again soon after each of the agent's last "
                          + x.restores()
                          + " restores (since "
                          + x.since().truncatedTo(ChronoUnit.SECONDS)
                          + "): another installer takes the directory over; not restored before "
                          + x.until().truncatedTo(ChronoUnit.SECONDS)
                          + ", at once if it comes back. Cilium renames every other"
                          + " configuration to *.cilium_bak unless installed with"
                          + " cni.exclusive=false"))
          .orElse(w);
    }

    @Override
    public ConflistAction keep(Keep k) {
      contested.found(new ContestedFiles.Key(k.desired().directory(), k.desired().fileName()), now);
      return k;
    }

    @Override
    public ConflistAction remove(Remove r) {
      contested.forget(new ContestedFiles.Key(r.directory(), r.fileName()));
      return r;
    }

    @Override
    public ConflistAction conflict(Conflict c) {
      return c;
    }

    @Override
    public ConflistAction reject(Reject r) {
      return r;
    }

    @Override
    public ConflistAction hold(Hold h) {
      return h;
    }

    @Override
    public ConflistAction contested(ConflistAction.Contested c) {
      return c;
    }

    @Override
    public ConflistAction forget(Forget f) {
      return f;
    }
  }

  private final class Chain implements ChainAction.Visitor<ChainAction> {
    private final Instant now;

    Chain(Instant now) {
      this.now = now;
    }

    @Override
    public ChainAction append(Append a) {
      if (!a.reapplied()) {
        return a;
      }
      DesiredConflist d = a.desired();
      Optional<ContestedFiles.Contest> c =
          contested.restore(key(d, a.fileName()), "rewritten without them", now);
      return c.<ChainAction>map(
              x ->
                  new ChainAction.Contested(
                      d,
                      a.fileName(),
                      a.fileName()
                          + " (network "
                          + d.appendTo()
                          + ") was rewritten without this network's entries again soon after each"
                          + " of the agent's last "
                          + x.restores()
                          + " re-appends (since "
                          + x.since().truncatedTo(ChronoUnit.SECONDS)
                          + "): its product drops other products' entries whenever it writes the"
                          + " file; not appended again before "
                          + x.until().truncatedTo(ChronoUnit.SECONDS)
                          + ", and pods added meanwhile run "
                          + d.appendTo()
                          + " without these plugins"))
          .orElse(a);
    }

    @Override
    public ChainAction inPlace(InPlace p) {
      contested.found(key(p.desired(), p.fileName()), now);
      return p;
    }

    @Override
    public ChainAction placeDropIns(ChainAction.PlaceDropIns p) {
      DesiredConflist d = p.desired();
      String dir = p.target() + "/";
      if (!p.restored()) {
        if (p.write().isEmpty()) {
          contested.found(key(d, dir), now);
        }
        return p;
      }
      Optional<ContestedFiles.Contest> c =
          contested.restore(key(d, dir), "changed or removed", now);
      return c.<ChainAction>map(
              x ->
                  new ChainAction.Contested(
                      d,
                      dir,
                      "this network's drop-ins in "
                          + dir
                          + " were changed or removed again soon after each of the agent's last "
                          + x.restores()
                          + " restores (since "
                          + x.since().truncatedTo(ChronoUnit.SECONDS)
                          + "): something on the node clears the directory; not written again"
                          + " before "
                          + x.until().truncatedTo(ChronoUnit.SECONDS)
                          + ", and pods added meanwhile run "
                          + d.appendTo()
                          + " without these plugins"))
          .orElse(p);
    }

    @Override
    public ChainAction removeDropIns(ChainAction.RemoveDropIns r) {
      return r;
    }

    @Override
    public ChainAction unappend(Unappend u) {
      return u;
    }

    @Override
    public ChainAction drop(Drop d) {
      contested.forgetAppended(d.network());
      return d;
    }

    @Override
    public ChainAction waiting(Waiting w) {
      return w;
    }

    @Override
    public ChainAction later(Later l) {
      return l;
    }

    @Override
    public ChainAction contested(ChainAction.Contested c) {
      return c;
    }

    private ContestedFiles.Key key(DesiredConflist d, String fileName) {
      return new ContestedFiles.Key(ConfigDirectory.Runtime, fileName, d.network());
    }
  }
}
