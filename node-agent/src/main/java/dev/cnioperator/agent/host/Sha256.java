package dev.cnioperator.agent.host;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The sha256 digest as lowercase hex, the form CniNode specs and the manifest use. */
public final class Sha256 {
  private Sha256() {}

  public static String hex(byte[] content) {
    return HexFormat.of().formatHex(digest().digest(content));
  }

  /** A fresh digest for streaming content through (downloads). */
  public static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** True when {@code text} looks like a sha256 in hex (64 hex digits). */
  public static boolean isWellFormed(String text) {
    return text != null && text.matches("[0-9a-fA-F]{64}");
  }
}
