package dev.cnioperator.testkit;

import java.security.SecureRandom;

/**
 * Short unique names for what tests create on the host (network namespaces, bridges, veths): all
 * start with {@code ct} so a leftover is recognisable, and stay within the 15 bytes of a Linux
 * interface name.
 */
public final class TestNames {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

  private TestNames() {}

  /** {@code ct<base><6 random chars>}, {@code base} cut so the whole is at most 15 characters. */
  public static String unique(String base) {
    String cleaned = base.toLowerCase().replaceAll("[^a-z0-9]", "");
    if (cleaned.length() > 7) {
      cleaned = cleaned.substring(0, 7);
    }
    StringBuilder sb = new StringBuilder("ct").append(cleaned);
    for (int i = 0; i < 6; i++) {
      sb.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return sb.toString();
  }
}
