package dev.cnioperator.agent.check;

import java.util.Set;

/**
 * The failing attachments of one network that already have their Event, so that each failure is
 * announced once, when it starts. Belongs to the network's owner and goes with it: a network
 * created again under the same name announces its failures afresh.
 */
public final class ReportedFailures {
  private Set<String> keys = Set.of();

  synchronized Set<String> get() {
    return keys;
  }

  synchronized void set(Set<String> now) {
    keys = Set.copyOf(now);
  }
}
