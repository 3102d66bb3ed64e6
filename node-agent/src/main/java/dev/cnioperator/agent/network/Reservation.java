package dev.cnioperator.agent.network;

import java.nio.file.Path;

/**
 * One address host-local has reserved for a network: the file {@code <store>/<ip>} holding the
 * container id and (since plugins 0.9) the interface name.
 *
 * @param store the network's directory in host-local's store, {@code <dataDir>/<network>}
 */
public record Reservation(Path store, String ip, String containerId, String ifName) {

  /** The key marks are kept under: one address may be reserved in two stores. */
  public String key() {
    return "reservation/" + store.resolve(ip);
  }
}
