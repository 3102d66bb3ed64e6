package dev.cnioperator.agent;

import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.cni.config.NetworkConfigList;
import java.time.Duration;

/**
 * One network of this node's CniNode spec, as the agent works with it.
 *
 * @param list the parsed conflist; null when the content is not a valid one ({@code invalid} says
 *     why)
 */
public record ManagedNetwork(
    DesiredConflist conflist,
    NetworkConfigList list,
    String invalid,
    NetworkPlugins plugins,
    CheckSettings check,
    CleanupSettings cleanup) {

  public String name() {
    return conflist.network();
  }

  /** When and how often attachments of this network are CHECKed. */
  public record CheckSettings(boolean enabled, Duration interval) {
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);
  }

  /** Whether and how stale IPAM reservations of this network are released. */
  public record CleanupSettings(
      boolean enabled, Duration gracePeriod, boolean dryRun, double maxDeleteFraction) {
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(300);
    public static final double DEFAULT_MAX_DELETE_FRACTION = 0.5;
  }

  /** CHECK runs only for enabled, valid networks of 0.4.0 or newer that do not disable it. */
  public boolean checkable() {
    return check.enabled()
        && list != null
        && list.cniVersion().supportsCheck()
        && !list.disableCheck();
  }
}
