package dev.cnioperator.cni.hardening;

import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.ValidationLevel;
import dev.cnioperator.cni.config.VersionSelection;
import dev.cnioperator.cni.result.Result;
import dev.cnioperator.cni.result.Results;
import java.util.Optional;

/**
 * What a runtime does with a libcni cache file before it can CHECK or DEL from it, in order: read
 * the entry, rebuild the attachment parameters, parse the cached configuration (at {@link
 * ValidationLevel#EXECUTABLE}, as for anything another tool wrote) and read the cached result in
 * the configuration's version. Each stage may refuse only with a {@link CniException}; anything
 * else escapes to the caller, which is how the fuzz target and the corpus test see a crash.
 */
final class CachedEntryUse {

  /** Where a cache file was refused; {@code error} is null when every stage passed. */
  record Outcome(String stage, CniException error) {
    static Outcome passed() {
      return new Outcome("none", null);
    }
  }

  private CachedEntryUse() {}

  static Outcome use(ResultCache cache, String network, String containerId, String ifName) {
    Optional<CachedAttachment> read;
    try {
      read = cache.read(network, containerId, ifName);
    } catch (CniException e) {
      return new Outcome("read", e);
    }
    if (read.isEmpty()) {
      throw new IllegalStateException("the cache file written for this case is gone");
    }
    CachedAttachment entry = read.get();
    try {
      entry.attachment();
    } catch (CniException e) {
      return new Outcome("attachment", e);
    }
    Optional<NetworkConfigList> list = Optional.empty();
    if (entry.config().length > 0) {
      try {
        list =
            Optional.of(
                NetworkConfigList.parse(
                    entry.config(), "cached config", ValidationLevel.EXECUTABLE));
      } catch (CniException e) {
        return new Outcome("config", e);
      }
    }
    if (entry.result() != null) {
      try {
        // libcni reads a cached result in its own version (0.1.0 when it states none).
        Result cached = Results.parse(entry.result());
        if (list.isPresent()) {
          cached.convertTo(VersionSelection.select(list.get())).toJson();
        }
      } catch (CniException e) {
        return new Outcome("result", e);
      }
    }
    return Outcome.passed();
  }
}
