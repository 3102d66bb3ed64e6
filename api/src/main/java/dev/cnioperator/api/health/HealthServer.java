package dev.cnioperator.api.health;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The operator's and the agent's {@code /healthz} (503 with the reason while not live: the kubelet
 * restarts the program), {@code /readyz} (503 with the reason while not ready) and {@code /metrics}
 * (Prometheus text) on the JDK's HTTP server: no framework, a small heap.
 *
 * <p>It lives in {@code api} because that is the one module both programs ship besides {@code cni},
 * and the {@code cni} library knows nothing of Kubernetes, whose probes these endpoints answer.
 */
public final class HealthServer implements AutoCloseable {
  /**
   * The JDK server's own bound on reading one request, in seconds (its default is none): both
   * programs run in the host network, so anyone on the node network reaches this port, and one
   * client that sends half a request would otherwise hold a worker until it gives up, and the
   * kubelet's probes with it. Read once, when the JDK's server class loads; this is the programs'
   * only HTTP server.
   */
  static final String MAX_REQUEST_SECONDS = "sun.net.httpserver.maxReqTime";

  /** Requests served at once: a slow client holds one of them for at most the bound above. */
  private static final int WORKERS = 4;

  static {
    if (System.getProperty(MAX_REQUEST_SECONDS) == null) {
      System.setProperty(MAX_REQUEST_SECONDS, "5");
    }
  }

  private final HttpServer server;
  private final ExecutorService workers;

  /**
   * @param notLive why {@code /healthz} answers 503, empty when it answers 200
   * @param notReady why {@code /readyz} answers 503, empty when it answers 200
   * @param metrics the text {@code /metrics} answers, such as a Prometheus registry's scrape
   */
  public HealthServer(
      InetSocketAddress address,
      Supplier<Optional<String>> notLive,
      Supplier<Optional<String>> notReady,
      Supplier<String> metrics)
      throws IOException {
    server = HttpServer.create(address, 0);
    AtomicInteger n = new AtomicInteger();
    workers =
        Executors.newFixedThreadPool(
            WORKERS,
            r -> {
              Thread t = new Thread(r, "health-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(workers);
    server.createContext("/healthz", ex -> answer(ex, notLive.get(), "not live: "));
    server.createContext("/readyz", ex -> answer(ex, notReady.get(), "not ready: "));
    server.createContext(
        "/metrics", ex -> send(ex, 200, "text/plain; version=0.0.4", metrics.get()));
  }

  public void start() {
    server.start();
  }

  /** The port actually bound (the address may ask for port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange ex, Optional<String> why, String prefix)
      throws IOException {
    send(ex, why.isEmpty() ? 200 : 503, "text/plain", why.map(w -> prefix + w).orElse("ok") + "\n");
  }

  private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    workers.shutdownNow();
  }
}
