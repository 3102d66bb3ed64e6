package dev.cnioperator.agent.network;

import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.ValidationLevel;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configuration an attachment was added with, as libcni caches it: what CHECK, DEL and the
 * cleanup's store lookup run with, never silently the current one instead.
 */
public final class CachedConfig {
  private static final Logger LOG = LoggerFactory.getLogger(CachedConfig.class);

  private CachedConfig() {}

  /**
   * The cached configuration of {@code entry}, read at {@link ValidationLevel#EXECUTABLE}:
   * containerd or CRI-O wrote it, and a rule that is only this project's policy must not replace
   * it. The network's current configuration only when the entry caches none; empty when it caches
   * one that cannot be executed, so that CHECK and DEL never run with a configuration the
   * attachment was not added with.
   */
  public static Optional<NetworkConfigList> of(ManagedNetwork network, CachedAttachment entry) {
    if (entry.config().length == 0) {
      return Optional.of(network.list());
    }
    try {
      return Optional.of(
          NetworkConfigList.parse(
              entry.config(),
              "cached config of " + entry.containerId(),
              ValidationLevel.EXECUTABLE));
    } catch (CniException e) {
      LOG.warn(
          "event=cached-config-unusable network={} container={} ifName={} error=\"{}\"",
          network.name(),
          entry.containerId(),
          entry.ifName(),
          e.getMessage());
      return Optional.empty();
    }
  }

  /** Why {@link #of} found nothing to run, for the status. */
  public static String unusable(CachedAttachment entry) {
    return "cached config of container "
        + entry.containerId()
        + " cannot be executed; not run with the current config";
  }

  /** As {@link #unusable(CachedAttachment)}, for {@code count} attachments. */
  public static String unusable(int count) {
    return count + " cached config(s) cannot be executed and were not run with the current config";
  }
}
