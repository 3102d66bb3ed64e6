package dev.cnioperator.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Copies bytes both ways between the connections it accepts on one address and the connections it
 * opens to another, each address TCP or a unix socket; it can be cut (open connections closed, new
 * ones closed at once) and restored. Behind {@link ApiServerProxy}; and a pair of them lets a
 * process in a network namespace of its own reach the API server on the machine's loopback with no
 * interface or address on the machine: one inside the namespace from loopback to a unix socket (a
 * file, the same from every network namespace), run as a program ({@link #main}), one outside from
 * that socket to the API server.
 */
public final class SocketRelay implements AutoCloseable {
  /** What {@link #main} prints once it listens, for whoever waits on it. */
  public static final String LISTENING = "listening";

  private static final int BUFFER = 64 * 1024;

  private final ServerSocketChannel listener;
  private final SocketAddress listen;
  private final SocketAddress target;
  private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
  private boolean cut;

  private SocketRelay(ServerSocketChannel listener, SocketAddress listen, SocketAddress target) {
    this.listener = listener;
    this.listen = listen;
    this.target = target;
  }

  /**
   * Listens on {@code listen} (a TCP port 0 picks a free one) and relays every connection to {@code
   * target}.
   */
  public static SocketRelay start(SocketAddress listen, SocketAddress target) {
    try {
      ServerSocketChannel listener;
      if (listen instanceof UnixDomainSocketAddress unix) {
        Files.deleteIfExists(unix.getPath());
        listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      } else {
        listener = ServerSocketChannel.open();
      }
      listener.bind(listen);
      SocketRelay relay = new SocketRelay(listener, listen, target);
      Thread t = new Thread(relay::acceptLoop, "relay-" + listener.getLocalAddress());
      t.setDaemon(true);
      t.start();
      return relay;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + listen, e);
    }
  }

  /** {@code tcp:<host>:<port>} or {@code unix:<path>}, as {@link #main} takes them. */
  static SocketAddress parse(String address) {
    if (address.startsWith("unix:")) {
      return UnixDomainSocketAddress.of(address.substring("unix:".length()));
    }
    if (address.startsWith("tcp:")) {
      String hostPort = address.substring("tcp:".length());
      int colon = hostPort.lastIndexOf(':');
      return new InetSocketAddress(
          hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }
    throw new IllegalArgumentException("not tcp:<host>:<port> or unix:<path>: " + address);
  }

  /**
   * {@code SocketRelay <listen> <target>}: relays until killed; prints {@value #LISTENING} once it
   * listens.
   */
  public static void main(String[] args) throws InterruptedException {
    if (args.length != 2) {
      System.err.println("usage: SocketRelay tcp:<host>:<port>|unix:<path> <target>");
      System.exit(2);
    }
    start(parse(args[0]), parse(args[1]));
    System.out.println(LISTENING);
    System.out.flush();
    Thread.currentThread().join();
  }

  /** The TCP port it listens on. */
  public int port() {
    try {
      return ((InetSocketAddress) listener.getLocalAddress()).getPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Closes the connections it relays, and each new one at once, until {@link #restore}. A
   * connection being accepted as the cut comes is closed too: accepting and cutting take turns.
   */
  public synchronized void cut() {
    cut = true;
    open.forEach(SocketRelay::closeQuietly);
    open.clear();
  }

  public synchronized void restore() {
    cut = false;
  }

  private void acceptLoop() {
    while (listener.isOpen()) {
      SocketChannel client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      relay(client);
    }
  }

  private synchronized void relay(SocketChannel client) {
    if (cut) {
      closeQuietly(client);
      return;
    }
    try {
      SocketChannel upstream = SocketChannel.open(target);
      open.add(client);
      open.add(upstream);
      pump(client, upstream);
      pump(upstream, client);
    } catch (IOException e) {
      // The target refused: the client sees its connection closed, as it would without a relay.
      closeQuietly(client);
    }
  }

  private void pump(SocketChannel from, SocketChannel to) {
    Thread t =
        new Thread(
            () -> {
              ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
              try {
                while (from.read(buffer) >= 0) {
                  buffer.flip();
                  while (buffer.hasRemaining()) {
                    to.write(buffer);
                  }
                  buffer.clear();
                }
              } catch (IOException e) {
                // one side closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "relay-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // already closed
    }
  }

  /** Stops listening, closes the connections it relays and removes its unix socket file. */
  @Override
  public void close() {
    cut();
    try {
      listener.close();
    } catch (IOException e) {
      // closed already
    }
    if (listen instanceof UnixDomainSocketAddress unix) {
      try {
        Files.deleteIfExists(unix.getPath());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove " + unix.getPath(), e);
      }
    }
  }
}
