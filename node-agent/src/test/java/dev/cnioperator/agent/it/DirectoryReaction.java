package dev.cnioperator.agent.it;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;

/**
 * Runs an action once now and again after every change inotify reports in one directory (created,
 * written, removed; not recursive), as the node installers the tests stand in for do: the events of
 * a burst are folded into one run.
 */
final class DirectoryReaction implements AutoCloseable {
  /** What runs on each change. */
  @FunctionalInterface
  interface Action {
    void run() throws IOException;
  }

  private final WatchService watch;
  private final Thread thread;

  DirectoryReaction(Path dir, String name, Action action) throws IOException {
    this.watch = dir.getFileSystem().newWatchService();
    dir.register(
        watch,
        StandardWatchEventKinds.ENTRY_CREATE,
        StandardWatchEventKinds.ENTRY_MODIFY,
        StandardWatchEventKinds.ENTRY_DELETE);
    action.run();
    this.thread =
        new Thread(
            () -> {
              try {
                while (true) {
                  WatchKey key = watch.take();
                  key.pollEvents();
                  key.reset();
                  action.run();
                }
              } catch (InterruptedException | ClosedWatchServiceException e) {
                // closed
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() throws Exception {
    watch.close();
    thread.interrupt();
    thread.join(5000);
  }
}
