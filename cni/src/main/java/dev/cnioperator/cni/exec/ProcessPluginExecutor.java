package dev.cnioperator.cni.exec;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs plugins as real child processes: the environment is exactly what the caller gives (plus
 * {@code PATH}, which plugins such as portmap need to find iptables), stdin is written then closed,
 * stdout is captured up to a bound and stderr keeps its tail, and a plugin that outlives its
 * timeout is killed together with its children.
 *
 * <p>With a root ({@link #inRoot}), each plugin runs chrooted into it: the node's root file system
 * as a node agent's container mounts it, so that a plugin finds the interpreter of a script, the
 * {@code iptables} and every other tool it executes where the container runtime's runs of it find
 * them, on the node, not in the agent's image. Paths (the plugin's, the netns, the files its
 * configuration names) are the node's; the agent mounts the directories it shares with plugins at
 * the node's paths, so one path means one file on both sides.
 */
public final class ProcessPluginExecutor implements PluginExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessPluginExecutor.class);

  /** Used when the caller's environment has no PATH and neither has ours. */
  static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  private static final String CHROOT = "chroot";
  private static final String TEXT_FILE_BUSY = "Text file busy";

  private final int stdoutLimit;
  private final int stderrLimit;
  private final int busyRetries;
  private final Duration busyDelay;
  private final ExecutorService streams;
  private final Path root;

  /** An executor with the bounds a node needs: 16 MiB of stdout, 64 KiB of stderr tail. */
  public ProcessPluginExecutor() {
    this(16 << 20, 64 << 10, 5, Duration.ofMillis(200));
  }

  /** {@link #ProcessPluginExecutor()}, each plugin chrooted into {@code root}. */
  public static ProcessPluginExecutor inRoot(Path root) {
    return new ProcessPluginExecutor(16 << 20, 64 << 10, 5, Duration.ofMillis(200), root);
  }

  /**
   * @param busyRetries how often a start that fails with ETXTBSY ("text file busy", the binary is
   *     still open for writing, e.g. while it is being installed) is retried, as libcni does
   */
  public ProcessPluginExecutor(
      int stdoutLimit, int stderrLimit, int busyRetries, Duration busyDelay) {
    this(stdoutLimit, stderrLimit, busyRetries, busyDelay, null);
  }

  /**
   * @param root the directory each plugin is chrooted into ({@code chroot}, from the image's
   *     coreutils), null to run it in this process's root
   */
  public ProcessPluginExecutor(
      int stdoutLimit, int stderrLimit, int busyRetries, Duration busyDelay, Path root) {
    this.root = root;
    this.stdoutLimit = stdoutLimit;
    this.stderrLimit = stderrLimit;
    this.busyRetries = busyRetries;
    this.busyDelay = busyDelay;
    this.streams =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "cni-plugin-io");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public ExecResult execute(Path plugin, Map<String, String> env, byte[] stdin, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int attempt = 0; ; attempt++) {
      ExecResult result = run(plugin, env, stdin, timeout, deadline);
      String failedStart = root == null ? null : chrootFailure(result);
      if (failedStart == null) {
        return result;
      }
      // chroot's exec of the plugin failed: the plugin never ran, as when our own start fails.
      if (!failedStart.contains(TEXT_FILE_BUSY) || attempt >= busyRetries) {
        throw new CniException(
            CniErrorCode.IO_FAILURE, "cannot start plugin " + plugin + " in " + root, failedStart);
      }
      LOG.debug("event=plugin-busy plugin={} attempt={}", plugin, attempt + 1);
      sleep(busyDelay);
    }
  }

  /**
   * chroot's own message when it could not enter the root or execute the plugin (exit 125, 126 or
   * 127, a line naming chroot), else null: the plugin ran, whatever it exited with.
   */
  private static String chrootFailure(ExecResult result) {
    if (result.exitCode() < 125 || result.exitCode() > 127) {
      return null;
    }
    String err = new String(result.stderr(), java.nio.charset.StandardCharsets.UTF_8).strip();
    return err.startsWith(CHROOT + ": failed to run command")
            || err.startsWith(CHROOT + ": cannot change root directory")
        ? err
        : null;
  }

  private ExecResult run(
      Path plugin, Map<String, String> env, byte[] stdin, Duration timeout, long deadline) {
    Process process = start(plugin, env);
    Future<BoundedCapture> stdout =
        streams.submit(() -> BoundedCapture.head(process.getInputStream(), stdoutLimit));
    Future<BoundedCapture> stderr =
        streams.submit(() -> BoundedCapture.tail(process.getErrorStream(), stderrLimit));
    streams.submit(() -> writeStdin(process, stdin));
    try {
      if (!process.waitFor(remaining(deadline), TimeUnit.NANOSECONDS)) {
        killTree(process);
        throw new CniException(
            CniErrorCode.PLUGIN_TIMEOUT,
            "plugin " + plugin.getFileName() + " did not finish within " + timeout,
            "killed pid=" + process.pid() + tailOf(stderr));
      }
      BoundedCapture out = awaitStream(stdout, deadline, process);
      BoundedCapture err = awaitStream(stderr, deadline, process);
      if (out.overflowed()) {
        throw new CniException(
            CniErrorCode.INVALID_PLUGIN_OUTPUT,
            "plugin "
                + plugin.getFileName()
                + " wrote more than "
                + stdoutLimit
                + " bytes to stdout",
            "");
      }
      return new ExecResult(process.exitValue(), out.bytes(), err.bytes(), err.overflowed());
    } catch (InterruptedException e) {
      killTree(process);
      Thread.currentThread().interrupt();
      throw new CniException(
          CniErrorCode.IO_FAILURE, "interrupted while running plugin " + plugin, "", e);
    }
  }

  private Process start(Path plugin, Map<String, String> env) {
    ProcessBuilder builder =
        root == null
            ? new ProcessBuilder(plugin.toString())
            : new ProcessBuilder(CHROOT, root.toString(), plugin.toString());
    Map<String, String> childEnv = builder.environment();
    childEnv.clear();
    childEnv.putAll(env);
    childEnv.computeIfAbsent("PATH", k -> System.getenv().getOrDefault("PATH", DEFAULT_PATH));
    for (int attempt = 0; ; attempt++) {
      try {
        return builder.start();
      } catch (IOException e) {
        boolean busy = String.valueOf(e.getMessage()).contains(TEXT_FILE_BUSY);
        if (!busy || attempt >= busyRetries) {
          throw new CniException(
              CniErrorCode.IO_FAILURE, "cannot start plugin " + plugin, e.getMessage(), e);
        }
        LOG.debug("event=plugin-busy plugin={} attempt={}", plugin, attempt + 1);
        sleep(busyDelay);
      }
    }
  }

  private static void writeStdin(Process process, byte[] stdin) {
    try (OutputStream in = process.getOutputStream()) {
      in.write(stdin);
    } catch (IOException e) {
      // The plugin closed its stdin early (it need not read it, e.g. on VERSION): not our error.
      LOG.trace("event=stdin-closed-early pid={} error={}", process.pid(), e.getMessage());
    }
  }

  /**
   * Waits for a stream reader. A plugin may leave a child behind that still holds the pipe; once
   * the deadline passes that child is killed so the reader ends.
   */
  private static BoundedCapture awaitStream(
      Future<BoundedCapture> reader, long deadline, Process process) throws InterruptedException {
    try {
      try {
        return reader.get(remaining(deadline), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        return reader.get(5, TimeUnit.SECONDS);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new CniException(
          CniErrorCode.IO_FAILURE,
          "cannot read the output of plugin pid=" + process.pid(),
          String.valueOf(e.getMessage()),
          e);
    }
  }

  private static void killTree(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String tailOf(Future<BoundedCapture> stderr) {
    try {
      BoundedCapture err = stderr.get(1, TimeUnit.SECONDS);
      String text = new String(err.bytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
      return text.isEmpty() ? "" : " stderr=" + text;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    } catch (ExecutionException | TimeoutException e) {
      return "";
    }
  }

  private static long remaining(long deadline) {
    return Math.max(0, deadline - System.nanoTime());
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A stream read to its end keeping at most {@code limit} bytes (its head or its tail). */
  record BoundedCapture(byte[] bytes, boolean overflowed) {

    static BoundedCapture head(InputStream in, int limit) throws IOException {
      ByteArrayOutputStream kept = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      boolean overflowed = false;
      try (in) {
        for (int n; (n = in.read(buf)) >= 0; ) {
          int room = limit - kept.size();
          if (n > room) {
            overflowed = true;
          }
          kept.write(buf, 0, Math.min(n, Math.max(room, 0)));
        }
      }
      return new BoundedCapture(kept.toByteArray(), overflowed);
    }

    static BoundedCapture tail(InputStream in, int limit) throws IOException {
      byte[] ring = new byte[limit];
      long total = 0;
      byte[] buf = new byte[8192];
      try (in) {
        for (int n; (n = in.read(buf)) >= 0; ) {
          for (int i = 0; i < n; i++) {
            ring[(int) ((total + i) % limit)] = buf[i];
          }
          total += n;
        }
      }
      if (total <= limit) {
        return new BoundedCapture(java.util.Arrays.copyOf(ring, (int) total), false);
      }
      byte[] tail = new byte[limit];
      int start = (int) (total % limit);
      System.arraycopy(ring, start, tail, 0, limit - start);
      System.arraycopy(ring, 0, tail, limit - start, start);
      return new BoundedCapture(tail, true);
    }
  }
}
