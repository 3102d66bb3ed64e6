package dev.cnioperator.agent.kube;

import dev.cnioperator.agent.cleanup.LivePods;
import dev.cnioperator.agent.cleanup.SourceOfTruth;
import dev.cnioperator.cri.CriException;
import dev.cnioperator.cri.CriRuntimeClient;
import dev.cnioperator.cri.PodSandbox;
import java.util.HashSet;
import java.util.Set;

/**
 * The container runtime's own list of pod sandboxes over CRI: a sandbox id is the CNI container id
 * of its attachments. Every sandbox the runtime still lists counts as live, ready or not, since the
 * kubelet tears down the ones it stops itself.
 */
public final class CriSandboxSource implements SourceOfTruth {
  private final CriRuntimeClient cri;

  public CriSandboxSource(CriRuntimeClient cri) {
    this.cri = cri;
  }

  @Override
  public String name() {
    return "cri";
  }

  @Override
  public LivePods read() {
    try {
      Set<String> ids = new HashSet<>();
      Set<String> ips = new HashSet<>();
      for (PodSandbox s : cri.listPodSandboxes()) {
        ids.add(s.id());
        if (s.ready()) {
          ips.addAll(cri.podSandboxStatus(s.id()).ips());
        }
      }
      return LivePods.fromRuntime(ids, ips);
    } catch (CriException e) {
      throw new Unavailable("the container runtime at " + cri.socket() + " cannot be read", e);
    }
  }
}
