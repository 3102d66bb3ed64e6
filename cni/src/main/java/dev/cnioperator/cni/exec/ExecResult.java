package dev.cnioperator.cni.exec;

import java.nio.charset.StandardCharsets;

/**
 * What one plugin process left behind: its exit code, its stdout and the tail of its stderr.
 *
 * @param stderrTruncated true when stderr was longer than the executor keeps and only its tail is
 *     here
 */
public record ExecResult(int exitCode, byte[] stdout, byte[] stderr, boolean stderrTruncated) {

  public ExecResult {
    stdout = stdout == null ? new byte[0] : stdout;
    stderr = stderr == null ? new byte[0] : stderr;
  }

  public ExecResult(int exitCode, byte[] stdout, byte[] stderr) {
    this(exitCode, stdout, stderr, false);
  }

  public boolean succeeded() {
    return exitCode == 0;
  }

  /** Stderr as text for messages, marked when its head was dropped. */
  public String stderrText() {
    String text = new String(stderr, StandardCharsets.UTF_8).strip();
    return stderrTruncated ? "..." + text : text;
  }
}
