package dev.cnioperator.e2e.k3s;

import java.util.List;

/**
 * A container image reference split the way the chart's values take it: {@code registry} (empty for
 * Docker Hub), {@code repository} and {@code tag}.
 */
record ImageReference(String registry, String repository, String tag) {

  /**
   * Parses {@code [registry/]repository:tag}. The first path segment is the registry when it looks
   * like a host (has a dot or a port, or is {@code localhost}), as container runtimes decide it.
   *
   * @throws IllegalArgumentException naming the reference when it has no tag or no repository
   */
  static ImageReference parse(String reference) {
    int slash = reference.lastIndexOf('/');
    int colon = reference.lastIndexOf(':');
    if (colon <= slash || colon == reference.length() - 1) {
      throw new IllegalArgumentException(
          "image reference '" + reference + "' has no tag: expected [registry/]repository:tag");
    }
    String name = reference.substring(0, colon);
    String tag = reference.substring(colon + 1);
    int firstSlash = name.indexOf('/');
    if (firstSlash > 0) {
      String first = name.substring(0, firstSlash);
      if (first.contains(".") || first.contains(":") || first.equals("localhost")) {
        return new ImageReference(first, name.substring(firstSlash + 1), tag);
      }
    }
    if (name.isEmpty()) {
      throw new IllegalArgumentException(
          "image reference '"
              + reference
              + "' has no repository: expected [registry/]repository:tag");
    }
    return new ImageReference("", name, tag);
  }

  /**
   * {@code --set} arguments for helm that make the chart value {@code key} (such as {@code
   * operator.image}) this image.
   */
  List<String> helmValues(String key, String pullPolicy) {
    return List.of(
        "--set-string", key + ".registry=" + registry,
        "--set-string", key + ".repository=" + repository,
        "--set-string", key + ".tag=" + tag,
        "--set-string", key + ".pullPolicy=" + pullPolicy);
  }

  @Override
  public String toString() {
    return (registry.isEmpty() ? "" : registry + "/") + repository + ":" + tag;
  }
}
