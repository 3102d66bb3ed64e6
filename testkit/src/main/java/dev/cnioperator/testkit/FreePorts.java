package dev.cnioperator.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for a server the test starts as a process of its own (kube-apiserver, etcd, a registry,
 * Prometheus), which binds the port some time after the test chose it.
 *
 * <p>A port the kernel hands out for {@code bind(0)} comes from its ephemeral range, the very range
 * it takes the source port of every outgoing connection from: in the seconds between the choice and
 * the server's bind, any connection on the machine may take it ("bind: address already in use",
 * seen in CI as kube-apiserver failing to start). These ports come from below that range, where the
 * kernel puts nothing by itself, each checked free by a bind, none handed out twice by this JVM,
 * and none by two test JVMs running at once ({@link ForkSlot}).
 */
public final class FreePorts {
  /** The lowest port handed out: above the well-known and most registered services. */
  private static final int LOWEST = 20000;

  private static final AtomicInteger NEXT = new AtomicInteger();

  /**
   * This JVM's part of the range: test JVMs running at once each pick from their own slice ({@link
   * ForkSlot}), so that two never choose the same port before its server binds it.
   */
  private static final int[] RANGE = ForkSlot.slice(LOWEST, ephemeralLow() - 1);

  static {
    NEXT.set(RANGE[0] + ThreadLocalRandom.current().nextInt(RANGE[1] - RANGE[0] + 1));
  }

  private FreePorts() {}

  /** A port free on {@code address} now, outside the kernel's ephemeral range. */
  public static int on(InetAddress address) {
    int span = RANGE[1] - RANGE[0] + 1;
    for (int tries = 0; tries < span; tries++) {
      int port = RANGE[0] + Math.floorMod(NEXT.getAndIncrement() - RANGE[0], span);
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(false);
        s.bind(new InetSocketAddress(address, port), 1);
        return port;
      } catch (IOException inUse) {
        // taken: the next one
      }
    }
    throw new UncheckedIOException(
        new IOException("no free port on " + address + " from " + RANGE[0] + " to " + RANGE[1]));
  }

  /** A port free on the loopback address now. */
  public static int onLoopback() {
    return on(InetAddress.getLoopbackAddress());
  }

  /** The first port of the kernel's ephemeral range (Linux's default 32768 when unreadable). */
  static int ephemeralLow() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      int low = Integer.parseInt(range.split("\\s+")[0]);
      return low > LOWEST + 1000 ? low : 32768;
    } catch (IOException | RuntimeException e) {
      return 32768;
    }
  }
}
