package dev.cnioperator.cni.config;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Picks the CNI version to execute a network with (SPEC-1.1.0.md Section 1, "Version
 * considerations"): the highest of {@code cniVersion} and {@code cniVersions} that this runtime
 * speaks and, when known, every plugin of the list supports (from their VERSION results).
 *
 * <p>Without plugin versions this is libcni's choice: {@code cniVersion} alone when there is no
 * {@code cniVersions}, else the highest entry not newer than the runtime. Narrowing by plugin
 * support is the spec's optional step that libcni does not take.
 */
public final class VersionSelection {
  private VersionSelection() {}

  /** The version libcni would pick: no knowledge of plugin support. */
  public static CniVersion select(NetworkConfigList list) {
    return select(list, null);
  }

  /**
   * The highest version the list declares, this runtime speaks and (unless {@code
   * supportedByAllPlugins} is null) every plugin supports.
   *
   * @throws CniException INCOMPATIBLE_VERSION when no declared version qualifies
   */
  public static CniVersion select(NetworkConfigList list, Set<CniVersion> supportedByAllPlugins) {
    Set<CniVersion> declared = new LinkedHashSet<>();
    declared.add(list.cniVersion());
    declared.addAll(list.cniVersions());
    return declared.stream()
        .filter(CniVersion::isSupported)
        .filter(v -> supportedByAllPlugins == null || supportedByAllPlugins.contains(v))
        .max(Comparator.naturalOrder())
        .orElseThrow(
            () ->
                new CniException(
                    CniErrorCode.INCOMPATIBLE_VERSION,
                    "no CNI version of network " + list.name() + " is supported by its plugins",
                    "network declares "
                        + new TreeSet<>(declared)
                        + ", runtime speaks "
                        + CniVersion.SUPPORTED
                        + ", plugins support "
                        + (supportedByAllPlugins == null
                            ? "anything"
                            : new TreeSet<>(supportedByAllPlugins))));
  }

  /** The versions every plugin supports: the intersection of their VERSION results. */
  public static Set<CniVersion> supportedByAll(Collection<? extends Collection<CniVersion>> each) {
    List<Collection<CniVersion>> all = new ArrayList<>(each);
    if (all.isEmpty()) {
      return Set.of();
    }
    Set<CniVersion> common = new TreeSet<>(all.get(0));
    all.forEach(common::retainAll);
    return Set.copyOf(common);
  }
}
