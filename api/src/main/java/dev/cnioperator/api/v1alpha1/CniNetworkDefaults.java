package dev.cnioperator.api.v1alpha1;

import dev.cnioperator.cni.CniVersion;
import java.util.Objects;

/**
 * The value of every CniNetwork spec field left out: the CRD's {@code @Default}s are made from
 * these constants, and the operator and the agent use them for a field the API server has not
 * filled (an object made in code, an older stored object), so the three can never disagree.
 */
public final class CniNetworkDefaults {

  /** spec.cniVersion, as the CRD writes it. */
  public static final String CNI_VERSION_TEXT = "1.0.0";

  /** spec.cniVersion. */
  public static final SpecVersion CNI_VERSION =
      SpecVersion.of(CniVersion.parse(CNI_VERSION_TEXT).orElseThrow());

  /** spec.priority. */
  public static final int PRIORITY = 50;

  /** spec.check.enabled. */
  public static final boolean CHECK_ENABLED = true;

  /** spec.check.intervalSeconds. */
  public static final int CHECK_INTERVAL_SECONDS = 60;

  /** spec.ipamCleanup.enabled. */
  public static final boolean CLEANUP_ENABLED = true;

  /** spec.ipamCleanup.gracePeriodSeconds. */
  public static final int CLEANUP_GRACE_PERIOD_SECONDS = 300;

  /** spec.ipamCleanup.dryRun. */
  public static final boolean CLEANUP_DRY_RUN = false;

  /** spec.ipamCleanup.maxDeleteFraction. */
  public static final double CLEANUP_MAX_DELETE_FRACTION = 0.5;

  /** spec.rollout.maxNodes. */
  public static final String ROLLOUT_MAX_NODES = "25%";

  /** spec.rollout.canaryNodes. */
  public static final int ROLLOUT_CANARY_NODES = 1;

  /** spec.rollout.onFailure, as the CRD writes it. */
  public static final String ROLLOUT_ON_FAILURE_TEXT = "Rollback";

  /** spec.rollout.onFailure. */
  public static final RolloutFailurePolicy ROLLOUT_ON_FAILURE =
      RolloutFailurePolicy.valueOf(ROLLOUT_ON_FAILURE_TEXT);

  /** spec.rollout.pauseSeconds. */
  public static final int ROLLOUT_PAUSE_SECONDS = 0;

  /** spec.rollout.progressDeadlineSeconds. */
  public static final int ROLLOUT_PROGRESS_DEADLINE_SECONDS = 600;

  /** spec.rollout.probe.enabled. */
  public static final boolean ROLLOUT_PROBE_ENABLED = true;

  private CniNetworkDefaults() {}

  /** {@code check} (null for none) with every field it leaves out filled: a new object. */
  public static NetworkCheck check(NetworkCheck check) {
    NetworkCheck c = check == null ? new NetworkCheck() : check;
    return new NetworkCheck()
        .setEnabled(Objects.requireNonNullElse(c.getEnabled(), CHECK_ENABLED))
        .setIntervalSeconds(
            Objects.requireNonNullElse(c.getIntervalSeconds(), CHECK_INTERVAL_SECONDS));
  }

  /** {@code cleanup} (null for none) with every field it leaves out filled: a new object. */
  public static IpamCleanup ipamCleanup(IpamCleanup cleanup) {
    IpamCleanup c = cleanup == null ? new IpamCleanup() : cleanup;
    return new IpamCleanup()
        .setEnabled(Objects.requireNonNullElse(c.getEnabled(), CLEANUP_ENABLED))
        .setGracePeriodSeconds(
            Objects.requireNonNullElse(c.getGracePeriodSeconds(), CLEANUP_GRACE_PERIOD_SECONDS))
        .setDryRun(Objects.requireNonNullElse(c.getDryRun(), CLEANUP_DRY_RUN))
        .setMaxDeleteFraction(
            Objects.requireNonNullElse(c.getMaxDeleteFraction(), CLEANUP_MAX_DELETE_FRACTION));
  }

  /** Whether {@code probe} (null for none) asks for a probe attachment. */
  public static boolean probeEnabled(RolloutProbe probe) {
    return probe == null || probe.getEnabled() == null ? ROLLOUT_PROBE_ENABLED : probe.getEnabled();
  }
}
