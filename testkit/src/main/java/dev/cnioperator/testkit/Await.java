package dev.cnioperator.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * The one wait the test kit adds to Awaitility, which every other wait of the tests uses directly
 * ({@code await("what").atMost(...).until(...)}): a process the test kit started serving, which
 * fails at once when the process exits, and either way with the end of its log.
 */
public final class Await {
  /** How much of a log a failure shows. */
  static final int LOG_TAIL_LINES = 40;

  private static final Duration POLL = Duration.ofMillis(100);

  private Await() {}

  /**
   * Polls {@code serving} until it holds, for at most {@code timeout} (Awaitility's clock is
   * monotonic), first at once and then every 100 ms, in the caller's thread.
   *
   * @param name the process, as failures name it ("etcd", "containerd", "kubelet of node n1")
   * @param log the file its output goes to
   * @throws IllegalStateException when the process exits first (its status), or the timeout passes
   *     (still running); with the last {@value #LOG_TAIL_LINES} lines of {@code log}
   */
  public static void serving(
      String name, Process process, Path log, BooleanSupplier serving, Duration timeout) {
    try {
      Awaitility.await(name + " serving")
          .atMost(timeout)
          .pollDelay(Duration.ZERO)
          .pollInterval(POLL)
          .pollInSameThread()
          .failFast(name + " exited", () -> !process.isAlive())
          .until(serving::getAsBoolean);
    } catch (TerminalFailureException e) {
      throw new IllegalStateException(
          name
              + " exited with status "
              + process.exitValue()
              + " before it served; the end of its log "
              + log
              + ":\n"
              + tail(log));
    } catch (ConditionTimeoutException e) {
      throw new IllegalStateException(
          name
              + " did not serve within "
              + timeout.toMillis()
              + " ms (still running); the end of its log "
              + log
              + ":\n"
              + tail(log));
    }
  }

  /** The last {@value #LOG_TAIL_LINES} lines of {@code log}, for a failure's message. */
  public static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join(
          "\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
