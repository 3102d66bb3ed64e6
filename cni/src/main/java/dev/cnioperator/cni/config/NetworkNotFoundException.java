package dev.cnioperator.cni.config;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.nio.file.Path;

/** No configuration file in a directory has the requested network name (libcni's NotFoundError). */
public class NetworkNotFoundException extends CniException {
  private static final long serialVersionUID = 1L;

  private final String networkName;

  public NetworkNotFoundException(Path dir, String networkName) {
    super(
        CniErrorCode.INVALID_NETWORK_CONFIG,
        "no network configuration with name \"" + networkName + "\" in " + dir,
        "looked at the .conflist, .conf and .json files of " + dir);
    this.networkName = networkName;
  }

  public String networkName() {
    return networkName;
  }
}
