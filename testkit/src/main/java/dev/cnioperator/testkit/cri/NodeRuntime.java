package dev.cnioperator.testkit.cri;

import dev.cnioperator.testkit.CommandResult;
import java.nio.file.Path;

/**
 * The container runtime of a test node, as the test kit drives it: started in the node's
 * namespaces, reached through its CRI socket, restarted, cut off as in a crash, and closed with
 * everything it made.
 */
public interface NodeRuntime extends AutoCloseable {
  /** The release running. */
  RuntimeRelease release();

  /** The CRI socket, as a path on the machine (for crictl and the tests' CRI clients). */
  Path socket();

  /**
   * The sandbox image this runtime runs, as a pod's container image names it: there, or pulled from
   * where the runtime pulls it.
   */
  String pauseImage();

  /** Runs crictl against this runtime. */
  CommandResult crictl(String... args);

  /** Lets this runtime pull from the plain-HTTP registry at {@code hostPort}. */
  void trustPlainHttpRegistry(String hostPort);

  /**
   * Makes the image in {@code tarball} (an OCI layout written by {@link
   * dev.cnioperator.testkit.containerd.OciImage}, named in it) available to this runtime's pods
   * under its name.
   */
  void importImage(Path tarball);

  /** Stops the runtime (SIGTERM) and starts it again on the same state; its pods run on. */
  void restart();

  /**
   * Cuts the power, as a node's crash or reboot does: the runtime and every process it runs die at
   * once (SIGKILL), nothing is torn down. {@link #restart} boots it again.
   */
  void powerCut();

  /** The runtime's stdout and stderr, across restarts. */
  Path logFile();

  /**
   * Removes every pod sandbox through the runtime (so the CNI plugins get their DEL), stops it and
   * removes what it left; fails naming what could not be removed.
   */
  @Override
  void close();
}
