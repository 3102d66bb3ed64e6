package dev.cnioperator.operator.template;

import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.operator.memo.BoundedMemo;
import java.util.List;

/**
 * The Node reconciler's memo of {@link RevisionRenderer}s, one per revision it renders, made once
 * for the revision and status.slices objects the informer holds and reused by every node's
 * reconcile until a new CniNetwork arrives: one change re-evaluates every node, and each would
 * otherwise parse the revision and read the whole slice list again.
 */
public final class RenderersByRevision {
  /** More than the revisions of all networks in use at once. */
  static final int REMEMBERED = 256;

  private record Entry(RenderedConfig revision, List<NodeSlice> slices, RevisionRenderer made) {}

  private final BoundedMemo<String, Entry> byRevision = new BoundedMemo<>(REMEMBERED);

  /** {@code revision} of network {@code network}, with its nodes' slices in {@code slices}. */
  public RevisionRenderer of(String network, RenderedConfig revision, List<NodeSlice> slices) {
    String key = network + "@" + revision.getSha256();
    Entry entry = byRevision.get(key);
    // The same objects, not equal ones: comparing the slice lists would read them whole each time.
    if (entry != null && entry.revision() == revision && entry.slices() == slices) {
      return entry.made();
    }
    RevisionRenderer made = RevisionRenderer.of(revision, slices);
    byRevision.put(key, new Entry(revision, slices, made));
    return made;
  }
}
