package dev.cnioperator.testkit.node;

import dev.cnioperator.testkit.ApiServerProxy;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ForkSlot;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.security.SecureRandom;

/**
 * A bridge on the host that real nodes ({@link KubeletNode}) hang their veths on, in a /24 of
 * 10.231.0.0/16 picked at random (so that concurrent runs do not meet), with the host at {@code .1}
 * and, listening there, a proxy to the control plane's API server (which listens on loopback only).
 * Nothing is routed beyond the bridge.
 */
public final class NodeBridge implements AutoCloseable {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final String name;
  private final String prefix;
  private final ApiServerProxy proxy;

  private NodeBridge(String name, String prefix, ApiServerProxy proxy) {
    this.name = name;
    this.prefix = prefix;
    this.proxy = proxy;
  }

  /**
   * The host address ({@code .1}) of a 10.231.x /24 no host interface uses yet: picked before the
   * control plane starts, so that its serving certificate can name the address the nodes and their
   * pods reach it at ({@link LocalControlPlane#startForNodes(String, java.util.List)}).
   */
  public static String freeHostAddress() {
    Prerequisites.requireCommand("ip");
    return freePrefix() + ".1";
  }

  /**
   * Creates the bridge with the host at {@code hostAddress} (from {@link #freeHostAddress}) and the
   * API server proxy listening there.
   */
  public static NodeBridge create(LocalControlPlane controlPlane, String hostAddress) {
    Prerequisites.requireRoot();
    Prerequisites.requireCommand("ip");
    if (!hostAddress.matches("10\\.231\\.\\d{1,3}\\.1")) {
      throw new IllegalArgumentException(
          "a node bridge's host address is 10.231.x.1, not " + hostAddress);
    }
    String name = TestNames.unique("nbr");
    String prefix = hostAddress.substring(0, hostAddress.length() - 2);
    Commands.run("ip", "link", "add", name, "type", "bridge").orThrow("ip link add " + name);
    try {
      Commands.run("ip", "addr", "add", prefix + ".1/24", "dev", name).orThrow("ip addr add");
      Commands.run("ip", "link", "set", name, "up").orThrow("ip link set " + name + " up");
      ApiServerProxy proxy =
          ApiServerProxy.start(InetAddress.getByName(prefix + ".1"), controlPlane.apiServerPort());
      return new NodeBridge(name, prefix, proxy);
    } catch (IOException | RuntimeException e) {
      Commands.run("ip", "link", "del", name);
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  /** A 10.231.x /24 no interface on the host has an address in (another run's bridge). */
  private static String freePrefix() {
    String addresses = Commands.run("ip", "-4", "-o", "addr", "show").orThrow("ip addr").stdout();
    // Test JVMs running at once pick from slices of their own (ForkSlot), so that two never take
    // the same /24 between this look and the address's assignment.
    int[] range = ForkSlot.slice(0, 255);
    for (int attempt = 0; attempt < 50; attempt++) {
      String prefix = "10.231." + (range[0] + RANDOM.nextInt(range[1] - range[0] + 1));
      if (!addresses.contains(" " + prefix + ".")) {
        return prefix;
      }
    }
    throw new IllegalStateException("no free /24 in 10.231.0.0/16 for a node bridge");
  }

  public String name() {
    return name;
  }

  /** The host's address on the bridge. */
  public String hostAddress() {
    return prefix + ".1";
  }

  /** The address of node {@code index} (0..199) on the bridge. */
  String nodeAddress(int index) {
    if (index < 0 || index > 199) {
      throw new IllegalArgumentException("node index " + index + " is not in 0..199");
    }
    return prefix + "." + (10 + index);
  }

  /** The API server as the nodes reach it: {@code https://<host address>:<proxy port>}. */
  public String apiServerUrl() {
    return "https://" + hostAddress() + ":" + proxy.port();
  }

  @Override
  public void close() {
    proxy.close();
    Commands.run("ip", "link", "del", name);
  }
}
