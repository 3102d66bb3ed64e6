package dev.cnioperator.e2e.chart;

import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.testkit.LocalControlPlane;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A CniNetwork's Ready condition read every second with a client of its own that does not retry (a
 * read during the API server's restart counts as unanswered rather than waiting it out): each
 * sample that was not True (with its reason and message), and the unanswered ones.
 */
final class ReadySamples {
  private final ScheduledExecutorService poller =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "ready-samples"));
  private final List<String> notReady = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger ready = new AtomicInteger();
  private final AtomicInteger unanswered = new AtomicInteger();
  private final long t0 = System.nanoTime();
  private final KubernetesClient client;
  private final String network;

  private ReadySamples(KubernetesClient client, String network) {
    this.client = client;
    this.network = network;
  }

  static ReadySamples start(LocalControlPlane cp, String network) {
    Config once =
        new ConfigBuilder(cp.client().getConfiguration())
            .withRequestRetryBackoffLimit(0)
            .withConnectionTimeout(2_000)
            .withRequestTimeout(2_000)
            .build();
    ReadySamples samples =
        new ReadySamples(new KubernetesClientBuilder().withConfig(once).build(), network);
    samples.poller.scheduleWithFixedDelay(samples::sample, 0, 1, TimeUnit.SECONDS);
    return samples;
  }

  /** Waits until {@code count} more samples were taken. */
  void awaitSamples(int count) {
    int until = ready.get() + unanswered.get() + notReady().size() + count;
    await(count + " more samples of the Ready condition")
        .atMost(Duration.ofSeconds(count * 3L))
        .until(() -> ready.get() + unanswered.get() + notReady().size() >= until);
  }

  private void sample() {
    CniNetwork read;
    try {
      read = client.resources(CniNetwork.class).withName(network).get();
    } catch (RuntimeException e) {
      unanswered.incrementAndGet();
      return;
    }
    Condition c =
        read == null || read.getStatus() == null
            ? null
            : read.getStatus().getConditions().stream()
                .filter(x -> "Ready".equals(x.getType()))
                .findFirst()
                .orElse(null);
    if (c != null && "True".equals(c.getStatus())) {
      ready.incrementAndGet();
    } else {
      notReady.add(
          (System.nanoTime() - t0) / 1_000_000
              + "ms: "
              + (c == null ? "no Ready condition" : c.getReason() + ": " + c.getMessage()));
    }
  }

  void stop() throws InterruptedException {
    poller.shutdown();
    poller.awaitTermination(10, TimeUnit.SECONDS);
    client.close();
  }

  int readyCount() {
    return ready.get();
  }

  int unanswered() {
    return unanswered.get();
  }

  List<String> notReady() {
    synchronized (notReady) {
      return List.copyOf(notReady);
    }
  }
}
