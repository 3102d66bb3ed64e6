package dev.cnioperator.cni.config;

/**
 * How much of {@link ConfigValidator} a configuration must pass.
 *
 * <p>{@link #FULL} is for configurations this project writes or accepts from people (a CniNetwork,
 * a file the agent renders). {@link #EXECUTABLE} is for configurations someone else wrote and
 * libcni would run, such as the config bytes in a libcni cache entry that containerd or CRI-O made,
 * or a node's {@code /etc/cni/net.d} read by the debugging CLI: it keeps only the rules without
 * which this runtime cannot execute the list safely (JSON shapes and types, a network name of the
 * spec's pattern, which libcni also checks before it executes and which names cache files, a
 * version this runtime speaks, plugin binary names that are safe file names), and drops the rules
 * that are the spec's advice or this project's policy (reserved keys, dns shape, a plugin's own
 * cniVersion or name, version-dependent flags, the cniVersions era, a missing ipam.type). Which
 * rule is which is said once, by {@link ConflistRule}.
 */
public enum ValidationLevel {
  FULL,
  EXECUTABLE;

  /**
   * Whether a problem of {@code rule} refuses a configuration at this level. A rule that is not one
   * of the library's own is never dropped.
   */
  public boolean refuses(ConfigRule rule) {
    return this == FULL || !(rule instanceof ConflistRule own && own.isPolicy());
  }
}
