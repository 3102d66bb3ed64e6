package dev.cnioperator.testkit;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which of the test JVMs running at the same time on this machine this one is, so that what they
 * pick at random from a shared range (a port, a bridge's /24) comes from disjoint slices and two of
 * them never take the same one between the check that it is free and its use.
 *
 * <p>Failsafe runs a module's integration tests in several forks ({@code it.forkCount}) and the
 * build runs modules side by side ({@code -T}); the root pom gives each forked JVM the system
 * property {@code testkit.slot} as {@code MODULE:FORK}: a number per module ({@code it.module}) and
 * failsafe's fork number, from 1. A JVM without it (a test run from an IDE, a benchmark) is slot 0
 * and picks from the whole range, at random, as one run alone. A JVM given it in any other shape
 * refuses to start its tests: a slot silently lost would put every fork back on the whole range,
 * where two of them meet only now and then (a port taken between its check and its server's bind).
 */
public final class ForkSlot {
  /** The system property the root pom sets for every forked test JVM. */
  public static final String PROPERTY = "testkit.slot";

  /** Forks a module may run at once; a module's slots are {@code module * FORKS + fork}. */
  static final int FORKS = 4;

  /** Modules that may run at once; slots are {@code 1 .. SLOTS - 1}. */
  static final int SLOTS = 8 * FORKS;

  /** {@value #PROPERTY}'s shape; declared before {@link #SLOT}, which it parses. */
  private static final Pattern SHAPE = Pattern.compile("(\\d{1,3}):(\\d{1,3})");

  private static final int SLOT = slot(System.getProperty(PROPERTY));

  private ForkSlot() {}

  /** This JVM's slot, 0 when it runs alone (no {@value #PROPERTY} property). */
  public static int current() {
    return SLOT;
  }

  /**
   * The {@code -D} argument that puts a child JVM (a quickstart the test starts) in this JVM's
   * slot, or none when this JVM has no slot.
   */
  public static List<String> jvmArguments() {
    String value = System.getProperty(PROPERTY);
    return value == null ? List.of() : List.of("-D" + PROPERTY + "=" + value);
  }

  static int slot(String value) {
    if (value == null) {
      return 0;
    }
    Matcher m = SHAPE.matcher(value.trim());
    if (!m.matches()) {
      throw new IllegalStateException(
          PROPERTY
              + "="
              + value
              + " is not MODULE:FORK (two numbers; the root pom's failsafe configuration sets it"
              + " from it.module and ${surefire.forkNumber})");
    }
    int module = Integer.parseInt(m.group(1));
    int fork = Integer.parseInt(m.group(2));
    if (fork < 1 || fork > FORKS || module * FORKS + fork >= SLOTS) {
      throw new IllegalStateException(
          PROPERTY
              + "="
              + value
              + " is outside the slots: a module runs at most "
              + FORKS
              + " forks, and there are at most "
              + (SLOTS / FORKS)
              + " modules (0 to "
              + (SLOTS / FORKS - 1)
              + ")");
    }
    return module * FORKS + fork;
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
