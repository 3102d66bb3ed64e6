package dev.cnioperator.agent.kube;

import dev.cnioperator.cri.CriException;
import dev.cnioperator.cri.CriRuntimeClient;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The agent's one client of the runtime's CRI socket, made on first use so an agent whose runtime
 * is not up yet still starts; shared by the live-sandbox source and the network-status probe.
 */
public final class CriConnection implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final Path socket;
  private CriRuntimeClient client;

  public CriConnection(Path socket) {
    this.socket = socket;
  }

  public Path socket() {
    return socket;
  }

  /** The client, connecting first if no earlier call did; fails while nothing is at the socket. */
  public synchronized CriRuntimeClient client() throws CriException {
    if (client == null) {
      client = CriRuntimeClient.connect(socket, TIMEOUT);
    }
    return client;
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
    }
  }
}
