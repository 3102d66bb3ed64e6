package dev.cnioperator.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A TCP proxy on loopback in front of the API server that a test can cut and restore, to see what a
 * client does when the API server is unreachable without stopping the shared control plane. While
 * cut, open connections are closed and new ones are accepted and closed at once.
 */
public final class ApiServerProxy implements AutoCloseable {
  private final SocketRelay relay;
  private final int targetPort;

  private ApiServerProxy(SocketRelay relay, int targetPort) {
    this.relay = relay;
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
    SocketRelay relay =
        SocketRelay.start(
            new InetSocketAddress(address, 0),
            new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
    return new ApiServerProxy(relay, targetPort);
  }

  /** A proxy in front of {@code controlPlane}'s API server. */
  public static ApiServerProxy in(LocalControlPlane controlPlane) {
    return start(controlPlane.apiServerPort());
  }

  public int port() {
    return relay.port();
  }

  /** Makes the API server unreachable through this proxy. */
  public void cut() {
    relay.cut();
  }

  /** Makes it reachable again. */
  public void restore() {
    relay.restore();
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

  @Override
  public void close() {
    relay.close();
  }
}
