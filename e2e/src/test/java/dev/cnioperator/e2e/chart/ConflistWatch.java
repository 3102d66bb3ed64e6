package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.node.KubeletNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Looks on every node for one conflist (in its conf dir, unless told where) every 50 ms while
 * something else runs (a rolling update), and keeps each moment a node did not have it.
 */
final class ConflistWatch {
  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "conflist-watch"));
  private final List<String> misses = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger reads = new AtomicInteger();

  private ConflistWatch() {}

  static ConflistWatch start(List<KubeletNode> nodes, String fileName) {
    return start(nodes, node -> node.cniConfDir().resolve(fileName));
  }

  /** Watches the file {@code file} names on each node. */
  static ConflistWatch start(List<KubeletNode> nodes, Function<KubeletNode, Path> file) {
    ConflistWatch watch = new ConflistWatch();
    watch.poller.scheduleWithFixedDelay(
        () -> {
          for (KubeletNode node : nodes) {
            if (!Files.isRegularFile(file.apply(node))) {
              watch.misses.add(node.name() + " at " + Instant.now());
            }
          }
          watch.reads.incrementAndGet();
        },
        0,
        50,
        TimeUnit.MILLISECONDS);
    return watch;
  }

  void stop() throws InterruptedException {
    poller.shutdown();
    poller.awaitTermination(10, TimeUnit.SECONDS);
  }

  /** When a node had no such file. */
  List<String> misses() {
    synchronized (misses) {
      return List.copyOf(misses);
    }
  }

  /** How many times every node's conf dir was looked into. */
  int reads() {
    return reads.get();
  }
}
