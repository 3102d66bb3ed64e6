package dev.cnioperator.cni.io;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The sha256 digest as lowercase hex, the form CniNode specs and the manifest use. */
public final class Sha256 {
  private Sha256() {}

  public static String hex(byte[] content) {
    return HexFormat.of().formatHex(digest().digest(content));
  }

  /** A file's sha256, read in 64 KiB pieces: a plugin binary is never held in memory whole. */
  public static String hex(Path file) throws IOException {
    MessageDigest digest = digest();
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[64 * 1024];
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        digest.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
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
