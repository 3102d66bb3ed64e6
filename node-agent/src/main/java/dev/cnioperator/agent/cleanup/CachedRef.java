package dev.cnioperator.agent.cleanup;

/**
 * One cached attachment of a network, reduced to what the stale decision needs.
 *
 * @param netns the network namespace path it was added in; empty when unknown
 * @param podNamespace K8S_POD_NAMESPACE from its CNI_ARGS, or null
 * @param podName K8S_POD_NAME from its CNI_ARGS, or null
 * @param podUid K8S_POD_UID from its CNI_ARGS, or null
 */
public record CachedRef(
    String containerId,
    String ifName,
    String netns,
    String podNamespace,
    String podName,
    String podUid) {

  /** The key marks are kept under. */
  public String key() {
    return "attachment/" + containerId + "/" + ifName;
  }

  public boolean namesPod() {
    return podNamespace != null && podName != null;
  }
}
