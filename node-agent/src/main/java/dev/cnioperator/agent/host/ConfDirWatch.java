package dev.cnioperator.agent.host;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes the agent when a file of a configuration directory (the runtime's, Multus's) is created,
 * written or removed, while the agent has a file or entries there: when someone changes or takes
 * away the agent's file, or another product rewrites its file without the entries declared onto it
 * (flannel's and Calico's init containers copy theirs in on every start), the agent puts them back
 * within a moment instead of at the next resync, and an installer that takes the file away after
 * every restore is recognised as contesting it within seconds. Changes that come together (a write
 * and its rename) wake it once, with the names of the files that changed; the agent skips the pass
 * when each of them is as it wrote it itself (its own write coming back) or not a configuration
 * file at all (its temporary files). Inotify on Linux, through the JDK's watch service; it watches
 * the directory itself, not its subdirectories. A directory deleted and made again is watched again
 * from the next pass on.
 */
public final class ConfDirWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConfDirWatch.class);

  /** Changes within this time of the first are folded into one wake-up. */
  static final long SETTLE_MILLIS = 100;

  private final Path dir;
  private final Consumer<Set<String>> changed;
  private volatile boolean active;
  private WatchService service;
  private Thread thread;

  /**
   * @param changed told the names of the files that changed, {@link #UNKNOWN} among them when the
   *     watch cannot say which (the kernel's queue overflowed, the directory went away)
   */
  public ConfDirWatch(Path dir, Consumer<Set<String>> changed) {
    this.dir = dir;
    this.changed = changed;
  }

  /** Wakes the agent on changes from now on ({@code true}), or no longer. */
  public synchronized void active(boolean wanted) {
    if (wanted && service == null) {
      try {
        service = FileSystems.getDefault().newWatchService();
        dir.register(
            service,
            StandardWatchEventKinds.ENTRY_CREATE,
            StandardWatchEventKinds.ENTRY_MODIFY,
            StandardWatchEventKinds.ENTRY_DELETE);
      } catch (IOException e) {
        LOG.warn("event=confdir-watch-failed dir={} error=\"{}\"", dir, e.getMessage());
        closeService();
        return;
      }
      WatchService watching = service;
      thread = new Thread(() -> run(watching), "confdir-watch");
      thread.setDaemon(true);
      thread.start();
      LOG.info("event=confdir-watch-started dir={}", dir);
    }
    active = wanted;
  }

  private void run(WatchService watching) {
    try {
      while (true) {
        WatchKey key = watching.take();
        // Let a write and its rename arrive, then wake once for all of them.
        Thread.sleep(SETTLE_MILLIS);
        Set<String> names = new TreeSet<>();
        boolean watched = drain(key, names);
        WatchKey more;
        while ((more = watching.poll(0, TimeUnit.MILLISECONDS)) != null) {
          watched &= drain(more, names);
        }
        if (!watched) {
          // The directory went away, and its watch with it: the next pass makes it again (the
          // agent's writes do) and, still wanted, watches the new one.
          LOG.info("event=confdir-watch-lost dir={} reason=\"the directory is gone\"", dir);
          lost(watching);
        }
        if (active) {
          changed.accept(watched ? names : Set.of(UNKNOWN));
        }
        if (!watched) {
          return;
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Takes the key's events, adding the names of the files they are about to {@code names}, or
   * clearing it for good when one cannot say (an overflow); false when the key is no longer valid
   * (its directory is gone).
   */
  private static boolean drain(WatchKey key, Set<String> names) {
    for (WatchEvent<?> event : key.pollEvents()) {
      if (event.kind() == StandardWatchEventKinds.OVERFLOW
          || !(event.context() instanceof Path p)) {
        names.add(UNKNOWN);
      } else {
        names.add(p.toString());
      }
    }
    return key.reset();
  }

  /** Stands for a change of a file the watch cannot name; no file of a conf dir has this name. */
  public static final String UNKNOWN = "/";

  /** Forgets {@code watching}, if it is still the service, so that {@link #active} makes anew. */
  private synchronized void lost(WatchService watching) {
    if (service == watching) {
      closeService();
    }
  }

  @Override
  public synchronized void close() {
    active = false;
    closeService();
  }

  private void closeService() {
    if (service != null) {
      try {
        service.close();
      } catch (IOException e) {
        LOG.debug("event=confdir-watch-close-failed error=\"{}\"", e.getMessage());
      }
      service = null;
    }
  }
}
