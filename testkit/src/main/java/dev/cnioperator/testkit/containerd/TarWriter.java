package dev.cnioperator.testkit.containerd;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes a POSIX ustar archive of regular files, enough for an OCI image layer and an OCI image
 * layout tarball. Every entry gets owner root and mtime 0, so the same files give the same bytes
 * and the image the same digest on every run.
 */
final class TarWriter implements AutoCloseable {
  private static final int BLOCK = 512;

  private final OutputStream out;

  TarWriter(OutputStream out) {
    this.out = out;
  }

  /** Adds a regular file {@code name} (a relative path, at most 100 bytes) with {@code mode}. */
  void addFile(String name, int mode, byte[] content) throws IOException {
    byte[] header = new byte[BLOCK];
    put(header, 0, 100, name.getBytes(StandardCharsets.UTF_8));
    putOctal(header, 100, 8, mode);
    putOctal(header, 108, 8, 0);
    putOctal(header, 116, 8, 0);
    putOctal(header, 124, 12, content.length);
    putOctal(header, 136, 12, 0);
    header[156] = '0';
    put(header, 257, 6, "ustar\0".getBytes(StandardCharsets.US_ASCII));
    put(header, 263, 2, "00".getBytes(StandardCharsets.US_ASCII));
    put(header, 265, 32, "root".getBytes(StandardCharsets.US_ASCII));
    put(header, 297, 32, "root".getBytes(StandardCharsets.US_ASCII));
    // The checksum is computed with its own field read as eight spaces.
    java.util.Arrays.fill(header, 148, 156, (byte) ' ');
    long sum = 0;
    for (byte b : header) {
      sum += b & 0xff;
    }
    putOctal(header, 148, 7, sum);
    out.write(header);
    out.write(content);
    int pad = (BLOCK - content.length % BLOCK) % BLOCK;
    out.write(new byte[pad]);
  }

  /** Ends the archive with its two zero blocks; does not close the stream underneath. */
  @Override
  public void close() throws IOException {
    out.write(new byte[2 * BLOCK]);
    out.flush();
  }

  private static void put(byte[] header, int offset, int length, byte[] value) {
    if (value.length > length) {
      throw new IllegalArgumentException(
          "tar header field at " + offset + " holds " + length + " bytes, got " + value.length);
    }
    System.arraycopy(value, 0, header, offset, value.length);
  }

  /** Zero-padded octal digits followed by a NUL, as ustar numeric fields are written. */
  private static void putOctal(byte[] header, int offset, int length, long value) {
    String digits = Long.toOctalString(value);
    String padded = "0".repeat(Math.max(0, length - 1 - digits.length())) + digits;
    put(header, offset, length, (padded + "\0").getBytes(StandardCharsets.US_ASCII));
  }
}
