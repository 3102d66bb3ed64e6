package dev.cnioperator.operator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/** /healthz, /readyz and /metrics (Prometheus text) on one small JDK HTTP server. */
public final class HealthServer implements AutoCloseable {

  private final HttpServer server;

  public HealthServer(
      int port, BooleanSupplier live, BooleanSupplier ready, PrometheusMeterRegistry registry)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(port), 0);
    server.createContext("/healthz", ex -> answer(ex, live.getAsBoolean()));
    server.createContext("/readyz", ex -> answer(ex, ready.getAsBoolean()));
    server.createContext(
        "/metrics", ex -> send(ex, 200, "text/plain; version=0.0.4", registry.scrape()));
  }

  public void start() {
    server.start();
  }

  /** The bound port (useful when started on port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  private static void answer(HttpExchange ex, boolean ok) throws IOException {
    send(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "not ready\n");
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
  }
}
