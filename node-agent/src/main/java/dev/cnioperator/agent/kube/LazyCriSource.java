package dev.cnioperator.agent.kube;

import dev.cnioperator.agent.cleanup.LivePods;
import dev.cnioperator.agent.cleanup.SourceOfTruth;
import dev.cnioperator.cri.CriException;

/**
 * {@link CriSandboxSource} over a {@link CriConnection} made on first use, so an agent whose
 * runtime is not up yet still starts (it just runs no cleanup until the runtime answers).
 */
public final class LazyCriSource implements SourceOfTruth {
  private final CriConnection cri;

  public LazyCriSource(CriConnection cri) {
    this.cri = cri;
  }

  @Override
  public String name() {
    return "cri";
  }

  @Override
  public LivePods read() {
    try {
      return new CriSandboxSource(cri.client()).read();
    } catch (CriException e) {
      throw new Unavailable("the container runtime at " + cri.socket() + " cannot be reached", e);
    }
  }
}
