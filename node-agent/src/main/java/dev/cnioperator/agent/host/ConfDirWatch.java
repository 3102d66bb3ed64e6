package dev.cnioperator.agent.host;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes the agent when a file of the runtime's configuration directory is created, written or
 * removed, while the node holds a network appended to another product's: when that product rewrites
 * its file without the entries (flannel's and Calico's init containers copy theirs in on every
 * start), the agent puts them back within a moment instead of at the next resync. Changes that come
 * together (a write and its rename) wake it once. Inotify on Linux, through the JDK's watch
 * service; it watches the directory itself, not its subdirectories. A directory deleted and made
 * again is watched again from the next pass on.
 */
public final class ConfDirWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConfDirWatch.class);

  /** Changes within this time of the first are folded into one wake-up. */
  static final long SETTLE_MILLIS = 100;

  private final Path dir;
  private final Runnable changed;
  private volatile boolean active;
  private WatchService service;
  private Thread thread;

  public ConfDirWatch(Path dir, Runnable changed) {
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
        boolean watched = drain(key);
        WatchKey more;
        while ((more = watching.poll(0, TimeUnit.MILLISECONDS)) != null) {
          watched &= drain(more);
        }
        if (!watched) {
          // The directory went away, and its watch with it: the next pass makes it again (the
          // agent's writes do) and, still wanted, watches the new one.
          LOG.info("event=confdir-watch-lost dir={} reason=\"the directory is gone\"", dir);
          lost(watching);
        }
        if (active) {
          changed.run();
        }
        if (!watched) {
          return;
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Takes the key's events; false when the key is no longer valid (its directory is gone). */
  private static boolean drain(WatchKey key) {
    key.pollEvents();
    return key.reset();
  }

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
