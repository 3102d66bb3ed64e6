package dev.cnioperator.testkit;

/**
 * Which of the test JVMs running at the same time on this machine this one is, so that what they
 * pick at random from a shared range (a port, a bridge's /24) comes from disjoint slices and two of
 * them never take the same one between the check that it is free and its use.
 *
 * <p>Failsafe runs a module's integration tests in several forks ({@code it.forkCount}) and the
 * build runs modules side by side ({@code -T}); the root pom gives each forked JVM the system
 * properties {@code testkit.module} (a number per module, {@code it.module}) and {@code
 * testkit.fork} (failsafe's {@code surefire.forkNumber}, from 1). A JVM without them (a test run
 * from an IDE, a benchmark) is slot 0 and picks from the whole range, at random, as one run alone.
 */
public final class ForkSlot {
  /** Forks a module may run at once; a module's slots are {@code module * FORKS + fork}. */
  static final int FORKS = 4;

  /** Modules that may run at once; slots are {@code 1 .. SLOTS - 1}. */
  static final int SLOTS = 8 * FORKS;

  private static final int SLOT =
      slot(System.getProperty("testkit.module"), System.getProperty("testkit.fork"));

  private ForkSlot() {}

  /** This JVM's slot, 0 when it runs alone (no fork properties). */
  public static int current() {
    return SLOT;
  }

  static int slot(String module, String fork) {
    if (module == null || fork == null || module.isBlank() || fork.isBlank()) {
      return 0;
    }
    try {
      int m = Integer.parseInt(module.trim());
      int f = Integer.parseInt(fork.trim());
      if (m < 0 || f < 1 || f > FORKS || m * FORKS + f >= SLOTS) {
        throw new IllegalStateException(
            "testkit.module="
                + module
                + " testkit.fork="
                + fork
                + " is outside the slots: a module"
                + " runs at most "
                + FORKS
                + " forks, and at most "
                + (SLOTS / FORKS)
                + " modules");
      }
      return m * FORKS + f;
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          "testkit.module=" + module + " testkit.fork=" + fork + " is not a pair of numbers", e);
    }
  }

  /**
   * The part of {@code [low, high]} (inclusive) this JVM picks from: the whole range in slot 0,
   * else one of {@link #SLOTS} equal slices. Returned as {@code {low, high}}.
   */
  public static int[] slice(int low, int high) {
    return slice(low, high, SLOT);
  }

  static int[] slice(int low, int high, int slot) {
    if (slot == 0) {
      return new int[] {low, high};
    }
    int width = (high - low + 1) / SLOTS;
    if (width < 1) {
      throw new IllegalArgumentException(
          "the range " + low + ".." + high + " is too small for " + SLOTS + " slots");
    }
    int from = low + slot * width;
    return new int[] {from, from + width - 1};
  }
}
