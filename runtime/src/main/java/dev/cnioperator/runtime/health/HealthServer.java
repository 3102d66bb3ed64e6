package dev.cnioperator.runtime.health;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The operator's and the agent's {@code /healthz} (503 with the reason while not live: the kubelet
 * restarts the program), {@code /readyz} (503 with the reason while not ready) and {@code /metrics}
 * (Prometheus text) on the JDK's HTTP server: no framework, a small heap.
 *
 * <p>It lives in {@code runtime}, the helpers both programs share at run time, because the {@code
 * cni} library knows nothing of Kubernetes, whose probes these endpoints answer.
 *
 * <p>The agent's server listens on the node's addresses, where anyone on the node network can
 * connect. The JDK server reads a request on the thread that accepts connections unless it is given
 * threads of its own, and waits for a request as long as it takes: one client that sent half a
 * request held up every other, the kubelet's probes included (three failed liveness probes and the
 * kubelet restarts the agent). So requests are answered on {@link #THREADS} threads, and one not
 * sent within {@link #REQUEST_SECONDS} (or whose answer is not read within that) is dropped. This
 * narrows what a slow or broken client does; it does not make the port fit for an untrusted
 * network.
 */
public final class HealthServer implements AutoCloseable {
  /** Threads answering requests: the kubelet's two probes and a scrape at once, and one spare. */
  static final int THREADS = 4;

  /** The longest the server waits for a request, or for its answer to be read. */
  static final long REQUEST_SECONDS = 10;

  static {
    // The JDK server reads these once; a value given on the command line wins.
    for (String limit : List.of("sun.net.httpserver.maxReqTime", "sun.net.httpserver.maxRspTime")) {
      if (System.getProperty(limit) == null) {
        System.setProperty(limit, Long.toString(REQUEST_SECONDS));
      }
    }
  }

  private final HttpServer server;
  private final ExecutorService threads;

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
    threads =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "health-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(threads);
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
    threads.shutdownNow();
  }
}
