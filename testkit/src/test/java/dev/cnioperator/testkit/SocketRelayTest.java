package dev.cnioperator.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TCP to a unix socket and back, as a node's namespaces reach the API server through it. */
class SocketRelayTest {
  @TempDir Path dir;
  private ServerSocket echo;

  /** A server that answers each line with the same line, for as long as the connection stays. */
  @BeforeEach
  void startEchoServer() throws IOException {
    echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!echo.isClosed()) {
                try {
                  Socket s = echo.accept();
                  Thread copier = new Thread(() -> copy(s));
                  copier.setDaemon(true);
                  copier.start();
                } catch (IOException e) {
                  return;
                }
              }
            });
    t.setDaemon(true);
    t.start();
  }

  @AfterEach
  void stopEchoServer() throws IOException {
    echo.close();
  }

  @Test
  void bytesGoThroughAUnixSocketBothWaysAndCloseRemovesTheSocketFile() throws IOException {
    Path socket = dir.resolve("api.sock");
    try (SocketRelay outside =
            SocketRelay.start(
                UnixDomainSocketAddress.of(socket),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), echo.getLocalPort()));
        SocketRelay inside =
            SocketRelay.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                UnixDomainSocketAddress.of(socket));
        Socket client = new Socket(InetAddress.getLoopbackAddress(), inside.port())) {
      client.getOutputStream().write("hello\n".getBytes(UTF_8));
      assertThat(readLine(client.getInputStream())).isEqualTo("hello");

      outside.close();
      assertThat(socket).doesNotExist();
      assertThat(client.getInputStream().read())
          .as("the relayed connection is closed")
          .isEqualTo(-1);
    }
  }

  @Test
  void aCutRelayClosesItsConnectionsAndRefusesNewOnesUntilRestored() throws IOException {
    try (SocketRelay relay =
        SocketRelay.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            new InetSocketAddress(InetAddress.getLoopbackAddress(), echo.getLocalPort()))) {
      Socket before = new Socket(InetAddress.getLoopbackAddress(), relay.port());
      before.getOutputStream().write("a\n".getBytes(UTF_8));
      assertThat(readLine(before.getInputStream())).isEqualTo("a");

      relay.cut();
      assertThat(before.getInputStream().read()).isEqualTo(-1);
      try (Socket during = new Socket(InetAddress.getLoopbackAddress(), relay.port())) {
        assertThat(during.getInputStream().read()).isEqualTo(-1);
      }

      relay.restore();
      try (Socket after = new Socket(InetAddress.getLoopbackAddress(), relay.port())) {
        after.getOutputStream().write("b\n".getBytes(UTF_8));
        assertThat(readLine(after.getInputStream())).isEqualTo("b");
      }
      before.close();
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c = in.read(); c != '\n' && c != -1; c = in.read()) {
      line.append((char) c);
    }
    return line.toString();
  }

  private static void copy(Socket s) {
    try (s) {
      s.getInputStream().transferTo(s.getOutputStream());
    } catch (IOException e) {
      // the relay closed it
    }
  }
}
