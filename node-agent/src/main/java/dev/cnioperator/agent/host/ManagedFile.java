package dev.cnioperator.agent.host;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One file the agent wrote: a conflist or a plugin binary.
 *
 * @param sha256 what the agent last wrote (or is about to write: the manifest is saved first)
 * @param previousSha256 what it wrote before, so a write interrupted by a kill between the manifest
 *     and the rename is recognised as the agent's own old version and not reported as drift
 * @param source where the content came from: the network name for a conflist, the bundled path or
 *     URL for a binary
 * @param content for a conflist, the agent's own content in the file it last wrote (the rendered
 *     network, without what other installers appended and the agent carried); null for a binary,
 *     and in a manifest of an agent older than this field
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ManagedFile(String sha256, String previousSha256, String source, String content) {

  public ManagedFile(String sha256, String previousSha256, String source) {
    this(sha256, previousSha256, source, null);
  }

  /** True when {@code diskSha256} is a version this agent wrote. */
  public boolean isOwnVersion(String diskSha256) {
    return diskSha256 != null && (diskSha256.equals(sha256) || diskSha256.equals(previousSha256));
  }

  /** This entry moved on to a new content, remembering the current one as the previous. */
  public ManagedFile next(String newSha256, String newSource, String newContent) {
    return new ManagedFile(
        newSha256, sha256.equals(newSha256) ? previousSha256 : sha256, newSource, newContent);
  }
}
