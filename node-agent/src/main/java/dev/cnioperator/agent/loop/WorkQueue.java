package dev.cnioperator.agent.loop;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Keys worked on by a few worker threads, as in a Kubernetes controller's work queue: a key is
 * never worked on by two workers at once, a key added again before its work began is worked on
 * once, and a key added while it is being worked on is worked on again afterwards. So the work on
 * one key is a serialized loop, and whatever it keeps between runs needs no lock: each run begins
 * after the previous one ended (this queue's monitor orders them).
 */
final class WorkQueue<K> implements AutoCloseable {
  private final ExecutorService workers;
  private final Consumer<K> work;

  /** Added and not yet taken by a worker. */
  private final Set<K> queued = new HashSet<>();

  /** Being worked on. */
  private final Set<K> working = new HashSet<>();

  private boolean closed;

  WorkQueue(int workers, String threadName, Consumer<K> work) {
    this.workers = Executors.newFixedThreadPool(workers, r -> new Thread(r, threadName));
    this.work = work;
  }

  /** Asks for a run on {@code key}; folded into one already asked for and not begun. */
  synchronized void add(K key) {
    if (closed || !queued.add(key) || working.contains(key)) {
      return;
    }
    workers.execute(() -> run(key));
  }

  private void run(K key) {
    synchronized (this) {
      if (closed) {
        return;
      }
      queued.remove(key);
      working.add(key);
    }
    try {
      work.accept(key);
    } finally {
      synchronized (this) {
        working.remove(key);
        if (!closed && queued.contains(key)) {
          workers.execute(() -> run(key));
        }
      }
    }
  }

  /** Begins no more runs and waits up to 30 s for those under way. */
  @Override
  public void close() throws InterruptedException {
    synchronized (this) {
      closed = true;
      queued.clear();
    }
    workers.shutdown();
    workers.awaitTermination(30, TimeUnit.SECONDS);
  }
}
