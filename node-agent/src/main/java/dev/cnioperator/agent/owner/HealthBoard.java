package dev.cnioperator.agent.owner;

import dev.cnioperator.agent.network.NetworkHealth;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * The latest {@link NetworkHealth} per network, shared between the loops that find it (CHECK,
 * cleanup, STATUS) and the status writer that reports it.
 */
public final class HealthBoard {
  private final Map<String, NetworkHealth> byNetwork = new ConcurrentHashMap<>();

  public NetworkHealth get(String network) {
    return byNetwork.getOrDefault(network, NetworkHealth.UNKNOWN);
  }

  public void update(String network, UnaryOperator<NetworkHealth> change) {
    byNetwork.compute(network, (k, v) -> change.apply(v == null ? NetworkHealth.UNKNOWN : v));
  }

  /** Forgets networks no longer on this node. */
  public void retain(Set<String> networks) {
    byNetwork.keySet().retainAll(networks);
  }
}
