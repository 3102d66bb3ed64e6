package dev.cnioperator.agent.kube;

import dev.cnioperator.agent.cleanup.LivePods;
import dev.cnioperator.agent.cleanup.SourceOfTruth;
import dev.cnioperator.cri.CriException;
import dev.cnioperator.cri.CriRuntimeClient;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@link CriSandboxSource} connected on first use, so an agent whose runtime is not up yet still
 * starts (it just runs no cleanup until the runtime answers).
 */
public final class LazyCriSource implements SourceOfTruth {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final Path socket;
  private CriSandboxSource connected;

  public LazyCriSource(Path socket) {
    this.socket = socket;
  }

  @Override
  public String name() {
    return "cri";
  }

  @Override
  public synchronized LivePods read() {
    if (connected == null) {
      try {
        connected = new CriSandboxSource(CriRuntimeClient.connect(socket, TIMEOUT));
      } catch (CriException e) {
        throw new Unavailable("the container runtime at " + socket + " cannot be reached", e);
      }
    }
    return connected.read();
  }
}
