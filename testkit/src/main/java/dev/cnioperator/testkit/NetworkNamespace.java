package dev.cnioperator.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A named network namespace made with {@code ip netns add} for one test, removed on close (which
 * also removes every interface inside it).
 */
public final class NetworkNamespace implements AutoCloseable {
  private final String name;
  private volatile boolean closed;

  private NetworkNamespace(String name) {
    this.name = name;
  }

  /** Creates {@code /var/run/netns/<unique name>}; fails or skips without root and {@code ip}. */
  public static NetworkNamespace create(String prefix) {
    Prerequisites.requireRoot();
    Prerequisites.requireCommand("ip");
    String name = TestNames.unique(prefix);
    Commands.run("ip", "netns", "add", name).orThrow("ip netns add " + name);
    NetworkNamespace ns = new NetworkNamespace(name);
    ns.exec("ip", "link", "set", "lo", "up");
    return ns;
  }

  public String name() {
    return name;
  }

  /** The path a CNI runtime passes as {@code CNI_NETNS}. */
  public Path path() {
    return Path.of("/var/run/netns", name);
  }

  /** Runs {@code command} inside the namespace and returns its stdout; throws when it fails. */
  public String exec(String... command) {
    return execResult(command)
        .orThrow("ip netns exec " + name + " " + String.join(" ", command))
        .stdout();
  }

  /** Runs {@code command} inside the namespace and returns the whole result. */
  public CommandResult execResult(String... command) {
    List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name));
    full.addAll(List.of(command));
    return Commands.run(full);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Commands.run("ip", "netns", "del", name);
  }

  @Override
  public String toString() {
    return "netns " + name;
  }
}
