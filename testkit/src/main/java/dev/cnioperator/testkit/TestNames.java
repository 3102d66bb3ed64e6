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

  /**
   * The /24s of 10.240.0.0/13 this JVM hands out as Nodes' pod CIDRs: its own slice when test JVMs
   * run at once ({@link ForkSlot}), from a random start.
   */
  private static final int[] POD_CIDRS = ForkSlot.slice(0, 2047);

  private static final java.util.concurrent.atomic.AtomicInteger POD_CIDR =
      new java.util.concurrent.atomic.AtomicInteger(
          POD_CIDRS[0] + RANDOM.nextInt(POD_CIDRS[1] - POD_CIDRS[0] + 1));

  private TestNames() {}

  /**
   * A pod CIDR for a Node object a test creates, as kube-controller-manager would assign one: a /24
   * of 10.240.0.0/13 (10.240.0.0 to 10.247.255.255, a range the tests own), different for each call
   * in a JVM.
   */
  public static String podCidr() {
    int span = POD_CIDRS[1] - POD_CIDRS[0] + 1;
    int n = POD_CIDRS[0] + Math.floorMod(POD_CIDR.getAndIncrement() - POD_CIDRS[0], span);
    return "10." + (240 + n / 256) + "." + (n % 256) + ".0/24";
  }

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
