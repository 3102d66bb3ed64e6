package dev.cnioperator.api.v1alpha1;

/** Where a node's agent stands with one network: the state in CniNode status.networks[]. */
public enum NetworkState {
  /** The file on disk holds the spec's content (appliedSha256 says which). */
  Applied,
  /** The agent could not apply the content; message says why. */
  Failed,
  /** A file of that name exists that the agent did not write; it is left alone. */
  Conflict,
  /**
   * The agent's file was taken away (renamed, removed or changed) again after each of its last
   * restores, as by an installer that takes the directory over, or, for a network appended to
   * another product's file, that file was rewritten without its entries after each of the agent's
   * last re-appends: not put back for a while; message says what was seen and until when.
   */
  Contested,
  /** The network was taken off the node and the agent deleted its file. */
  Removed
}
