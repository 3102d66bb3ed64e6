package dev.cnioperator.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on loopback in front of the API server that a test can cut and restore, to see what a
 * client does when the API server is unreachable without stopping the shared control plane. While
 * cut, open connections are closed and new ones are accepted and closed at once.
 */
public final class ApiServerProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int targetPort;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile boolean cut;

  private ApiServerProxy(ServerSocket listener, int targetPort) {
    this.listener = listener;
    this.targetPort = targetPort;
  }

  /** A proxy to 127.0.0.1:{@code targetPort}, listening on a free loopback port. */
  public static ApiServerProxy start(int targetPort) {
    return start(InetAddress.getLoopbackAddress(), targetPort);
  }

  /**
   * A proxy to 127.0.0.1:{@code targetPort} listening on a free port of {@code address} (e.g. the
   * host's address on a test bridge, for nodes in their own network namespaces).
   */
  public static ApiServerProxy start(InetAddress address, int targetPort) {
    try {
      ServerSocket listener = new ServerSocket();
      listener.bind(new InetSocketAddress(address, 0));
      ApiServerProxy proxy = new ApiServerProxy(listener, targetPort);
      Thread t = new Thread(proxy::acceptLoop, "api-proxy-" + listener.getLocalPort());
      t.setDaemon(true);
      t.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A proxy in front of {@code controlPlane}'s API server. */
  public static ApiServerProxy in(LocalControlPlane controlPlane) {
    return start(controlPlane.apiServerPort());
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** Makes the API server unreachable through this proxy. */
  public void cut() {
    cut = true;
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  /** Makes it reachable again. */
  public void restore() {
    cut = false;
  }

  /**
   * Writes a copy of {@code kubeconfig} whose server is this proxy (the API server's certificate
   * names 127.0.0.1, so only the port changes).
   */
  public Path writeKubeconfig(Path kubeconfig, Path out) {
    try {
      String text = Files.readString(kubeconfig);
      String rewritten = text.replace("127.0.0.1:" + targetPort, "127.0.0.1:" + port());
      if (rewritten.equals(text)) {
        throw new IllegalStateException(kubeconfig + " does not name 127.0.0.1:" + targetPort);
      }
      Files.createDirectories(out.toAbsolutePath().getParent());
      return Files.writeString(out, rewritten);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        if (cut) {
          closeQuietly(client);
          continue;
        }
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        open.add(client);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        // The listener closed, or the API server refused: the client sees a closed connection.
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
              } catch (IOException e) {
                // one side closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "api-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    cut();
    try {
      listener.close();
    } catch (IOException e) {
      // already closed
    }
  }
}
