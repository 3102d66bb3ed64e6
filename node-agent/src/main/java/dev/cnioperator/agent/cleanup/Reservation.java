package dev.cnioperator.agent.cleanup;

/**
 * One address host-local has reserved for a network: the file {@code <dataDir>/<network>/<ip>}
 * holding the container id and (since plugins 0.9) the interface name.
 */
public record Reservation(String ip, String containerId, String ifName) {

  public String key() {
    return "reservation/" + ip;
  }
}
