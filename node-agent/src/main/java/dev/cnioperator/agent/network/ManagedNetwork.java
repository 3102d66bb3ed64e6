package dev.cnioperator.agent.network;

import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.config.NetworkConfigList;
import java.time.Duration;

/**
 * One network of this node's CniNode spec, as the agent works with it.
 *
 * @param uid the CniNetwork's uid, null where the operator did not write one: a network of the same
 *     name with another uid is another network
 * @param list the parsed conflist; null when the content is not a valid one ({@code invalid} says
 *     why)
 * @param proof how a new content is proven, as the operator asks (it asks when it rolls out)
 */
public record ManagedNetwork(
    DesiredConflist conflist,
    String uid,
    NetworkConfigList list,
    String invalid,
    NetworkPlugins plugins,
    CheckSettings check,
    CleanupSettings cleanup,
    Proof proof) {

  public String name() {
    return conflist.network();
  }

  /** The configuration directory the network's file is in. */
  public ConfigDirectory directory() {
    return conflist.directory();
  }

  /** How the agent proves a new content of the network. */
  public enum Proof {
    /** Not asked for (no rollout settings in the spec): nothing is probed or reported. */
    NONE,
    /** STATUS (1.1.0) and no live attachment turning unhealthy; no probe attachment. */
    CHECKS,
    /**
     * As CHECKS, and first a probe attachment: ADD, CHECK, DEL in a namespace of the agent's own.
     */
    ATTACHMENT
  }

  /** When and how often attachments of this network are CHECKed. */
  public record CheckSettings(boolean enabled, Duration interval) {}

  /** Whether and how stale IPAM reservations of this network are released. */
  public record CleanupSettings(
      boolean enabled, Duration gracePeriod, boolean dryRun, double maxDeleteFraction) {
    /** No cleanup. */
    public static final CleanupSettings OFF = new CleanupSettings(false, Duration.ZERO, true, 0);
  }

  /** Whether its plugins are appended to another product's network (spec.appendTo). */
  public boolean appended() {
    return conflist.appended();
  }

  /**
   * This network as the runtime runs it when its plugins share a file with other products' (they
   * are appended to another product's file, or another installer appended its plugins to this
   * network's): {@code list} is that file's chain. The probe proves that chain, not the declared
   * plugins alone.
   */
  public ManagedNetwork runningAs(NetworkConfigList running) {
    return new ManagedNetwork(conflist, uid, running, invalid, plugins, check, cleanup, proof);
  }

  /**
   * Whether the agent goes over this network's attachments every CHECK interval: to CHECK them, or,
   * for a network appended to another product's, to count which chain they run.
   */
  public boolean attachmentsCounted() {
    return checkable() || (appended() && check.enabled() && list != null);
  }

  /**
   * CHECK runs only for enabled, valid networks of 0.4.0 or newer that do not disable it, and not
   * for networks appended to another product's: their attachments are that product's pods.
   */
  public boolean checkable() {
    return !appended()
        && check.enabled()
        && list != null
        && list.cniVersion().supportsCheck()
        && !list.disableCheck();
  }
}
