package dev.cnioperator.operator.template;

import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.operator.memo.BoundedMemo;
import java.util.List;

/**
 * The {@link RevisionForNodes} of each revision the Node reconciler renders, made once for the
 * revision and status.slices objects the informer holds and reused by every node's reconcile until
 * a new CniNetwork arrives: one change re-evaluates every node, and each would otherwise parse the
 * revision and read the whole slice list again.
 */
public final class RevisionsForNodes {
  /** More than the revisions of all networks in use at once. */
  static final int REMEMBERED = 256;

  private record Entry(RenderedConfig revision, List<NodeSlice> slices, RevisionForNodes made) {}

  private final BoundedMemo<String, Entry> byRevision = new BoundedMemo<>(REMEMBERED);

  /** {@code revision} of network {@code network}, with its nodes' slices in {@code slices}. */
  public RevisionForNodes of(String network, RenderedConfig revision, List<NodeSlice> slices) {
    String key = network + "@" + revision.getSha256();
    Entry entry = byRevision.get(key);
    // The same objects, not equal ones: comparing the slice lists would read them whole each time.
    if (entry != null && entry.revision() == revision && entry.slices() == slices) {
      return entry.made();
    }
    RevisionForNodes made = RevisionForNodes.of(revision, slices);
    byRevision.put(key, new Entry(revision, slices, made));
    return made;
  }
}
