package dev.cnioperator.e2e.faults;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Serves plugin binaries for CniPlugin URLs from 127.0.0.1, each at {@code /<name>}, optionally
 * slowly (64 KiB every 100 ms) so a test can kill the downloading agent half-way; it reports when a
 * slow download has sent a given number of bytes.
 */
final class PluginServer implements AutoCloseable {
  private static final int CHUNK = 64 * 1024;

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Map<String, byte[]> binaries = new ConcurrentHashMap<>();
  private final AtomicLong slowBytesSent = new AtomicLong();
  private volatile boolean slow;
  private volatile long signalAt = Long.MAX_VALUE;
  private volatile CountDownLatch signal = new CountDownLatch(1);

  private PluginServer(HttpServer server) {
    this.server = server;
  }

  static PluginServer start() {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      PluginServer plugins = new PluginServer(server);
      server.createContext("/", plugins::serve);
      server.setExecutor(plugins.threads);
      server.start();
      return plugins;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Publishes {@code content} and returns its URL. */
  String publish(String name, byte[] content) {
    binaries.put(name, content);
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + name;
  }

  /** From now on, downloads trickle; {@code latch} opens once {@code bytes} have been sent. */
  CountDownLatch slowDown(long bytes) {
    slowBytesSent.set(0);
    signalAt = bytes;
    signal = new CountDownLatch(1);
    slow = true;
    return signal;
  }

  void fullSpeed() {
    slow = false;
  }

  long slowBytesSent() {
    return slowBytesSent.get();
  }

  private void serve(com.sun.net.httpserver.HttpExchange exchange) throws IOException {
    byte[] body = binaries.get(exchange.getRequestURI().getPath().substring(1));
    if (body == null) {
      exchange.sendResponseHeaders(404, -1);
      exchange.close();
      return;
    }
    exchange.sendResponseHeaders(200, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      for (int off = 0; off < body.length; off += CHUNK) {
        out.write(body, off, Math.min(CHUNK, body.length - off));
        if (slow) {
          out.flush();
          if (slowBytesSent.addAndGet(CHUNK) >= signalAt) {
            signal.countDown();
          }
          sleep();
        }
      }
    } catch (IOException e) {
      // the agent went away mid-download, which is what the test wants
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * A shell-script CNI plugin that answers VERSION and refuses everything else, marked with {@code
   * revision} and padded with {@code paddingBytes} of comment after its last command.
   */
  static byte[] scriptPlugin(String revision, int paddingBytes) {
    StringBuilder s =
        new StringBuilder(
            """
            #!/bin/sh
            # fault-test plugin, revision %1$s
            if [ "$CNI_COMMAND" = VERSION ]; then
              echo '{"cniVersion":"1.0.0","supportedVersions":["0.3.0","0.3.1","0.4.0","1.0.0"]}'
              exit 0
            fi
            echo '{"cniVersion":"1.0.0","code":100,"msg":"revision %1$s does nothing"}'
            exit 1
            """
                .formatted(revision));
    String line = "#" + "x".repeat(1022) + "\n";
    while (s.length() < paddingBytes) {
      s.append(line);
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  static String sha256(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
