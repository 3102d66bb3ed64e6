package dev.cnioperator.operator.placement;

import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.operator.memo.BoundedMemo;

/**
 * Checks that a revision is whole ({@link #isIntact}), remembering what it found for the revisions
 * it checked last: every node's evaluation of a network reads the same revision, and hashing its
 * content again for each was the operator's hottest method at 1,000 nodes. A reconciler holds one
 * for all its reconciles.
 */
public final class RevisionIntegrity {
  /** More than the revisions in use at once (each network's accepted and stable one). */
  static final int REMEMBERED = 256;

  private final BoundedMemo<Checked, Boolean> checked = new BoundedMemo<>(REMEMBERED);

  /**
   * What {@link #isIntact} hashes, as values, so that an edit of any of them is checked again. A
   * String caches its hash code, so looking up the informer's own strings is cheap.
   */
  private record Checked(
      String sha256, String content, String subnet, Integer prefixLength, String appendTo) {}

  /**
   * Whether {@code r} is whole: its content, nodeSlices and appendTo hash to its sha256 ({@link
   * AcceptedRevision#identity}), and it names its file and network. A corruption check, not an
   * authorship check (see {@link AcceptedRevision#of}).
   */
  public boolean isIntact(RenderedConfig r) {
    if (r.getContent() == null
        || r.getSha256() == null
        || r.getFileName() == null
        || r.getNetworkName() == null) {
      return false;
    }
    NodeSlices slices = r.getNodeSlices();
    Checked key =
        new Checked(
            r.getSha256(),
            r.getContent(),
            slices == null ? null : slices.getSubnet(),
            slices == null ? null : slices.getPrefixLength(),
            r.getAppendTo());
    return checked.computeIfAbsent(
        key, k -> k.sha256().equals(AcceptedRevision.identity(k.content(), slices, k.appendTo())));
  }
}
