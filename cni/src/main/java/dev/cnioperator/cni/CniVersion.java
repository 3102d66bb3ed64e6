package dev.cnioperator.cni;

import java.util.List;
import java.util.Optional;

/**
 * A CNI specification version ("0.3.0" ... "1.1.0"), ordered, with what each version allows.
 *
 * <p>Versions this runtime can speak are {@link #SUPPORTED}; 0.1.0 and 0.2.0 are known only so
 * their results can be read (SPEC-1.1.0.md, Section 5 "Version considerations").
 */
public record CniVersion(int major, int minor, int patch) implements Comparable<CniVersion> {

  public static final CniVersion V0_1_0 = new CniVersion(0, 1, 0);
  public static final CniVersion V0_2_0 = new CniVersion(0, 2, 0);
  public static final CniVersion V0_3_0 = new CniVersion(0, 3, 0);
  public static final CniVersion V0_3_1 = new CniVersion(0, 3, 1);
  public static final CniVersion V0_4_0 = new CniVersion(0, 4, 0);
  public static final CniVersion V1_0_0 = new CniVersion(1, 0, 0);
  public static final CniVersion V1_1_0 = new CniVersion(1, 1, 0);

  /** Versions a network configuration may declare and this runtime executes. */
  public static final List<CniVersion> SUPPORTED = List.of(V0_3_0, V0_3_1, V0_4_0, V1_0_0, V1_1_0);

  /** Every version whose results this runtime can read. */
  public static final List<CniVersion> KNOWN =
      List.of(V0_1_0, V0_2_0, V0_3_0, V0_3_1, V0_4_0, V1_0_0, V1_1_0);

  /** The newest version this runtime speaks. */
  public static final CniVersion LATEST = V1_1_0;

  /** How strictly {@link #parse(String, Strictness)} reads a version. */
  public enum Strictness {
    /**
     * One of {@link #KNOWN}, spelled exactly as {@link #toString()} does: what a configuration or a
     * result declares.
     */
    KNOWN,
    /**
     * Any "X.Y.Z" of plain decimal numbers (no sign, no leading zero), known or not: the entries of
     * a configuration's {@code cniVersions}, which may name versions newer than this runtime.
     */
    SEMVER,
    /**
     * libcni's {@code version.ParseVersion}: one to three dot-separated decimal numbers, leading
     * zeros allowed, missing parts zero: what a plugin answers to VERSION.
     */
    LIBCNI
  }

  /** Longest number part read: nine digits always fit an int. */
  private static final int MAX_DIGITS = 9;

  /** Parses "X.Y.Z" of a version this runtime knows; empty for anything else. */
  public static Optional<CniVersion> parse(String text) {
    return parse(text, Strictness.KNOWN);
  }

  /** Parses {@code text} as {@code strictness} allows; empty when it does not. */
  public static Optional<CniVersion> parse(String text, Strictness strictness) {
    if (text == null) {
      return Optional.empty();
    }
    String[] parts = text.split("\\.", -1);
    boolean lenient = strictness == Strictness.LIBCNI;
    if (parts.length > 3 || (!lenient && parts.length != 3)) {
      return Optional.empty();
    }
    int[] numbers = new int[3];
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      boolean digits =
          !part.isEmpty()
              && part.length() <= MAX_DIGITS
              && part.chars().allMatch(c -> c >= '0' && c <= '9');
      if (!digits || (!lenient && part.length() > 1 && part.charAt(0) == '0')) {
        return Optional.empty();
      }
      numbers[i] = Integer.parseInt(part);
    }
    CniVersion version = new CniVersion(numbers[0], numbers[1], numbers[2]);
    if (strictness == Strictness.KNOWN && !KNOWN.contains(version)) {
      return Optional.empty();
    }
    return Optional.of(version);
  }

  public boolean isSupported() {
    return SUPPORTED.contains(this);
  }

  /** Chaining with prevResult exists from 0.3.0 on. */
  public boolean supportsChaining() {
    return compareTo(V0_3_0) >= 0;
  }

  /** CHECK, and prevResult on DEL, exist from 0.4.0 on. */
  public boolean supportsCheck() {
    return compareTo(V0_4_0) >= 0;
  }

  /** GC and STATUS exist from 1.1.0 on. */
  public boolean supportsGcAndStatus() {
    return compareTo(V1_1_0) >= 0;
  }

  public boolean isAtLeast(CniVersion other) {
    return compareTo(other) >= 0;
  }

  @Override
  public int compareTo(CniVersion o) {
    if (major != o.major) {
      return Integer.compare(major, o.major);
    }
    if (minor != o.minor) {
      return Integer.compare(minor, o.minor);
    }
    return Integer.compare(patch, o.patch);
  }

  @Override
  public String toString() {
    return major + "." + minor + "." + patch;
  }
}
