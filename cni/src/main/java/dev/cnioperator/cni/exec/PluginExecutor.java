package dev.cnioperator.cni.exec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The seam between this library and the operating system: runs one plugin binary with exactly the
 * given environment and stdin. Production uses {@link ProcessPluginExecutor}; unit tests of pure
 * decisions may hand in a small fake.
 */
public interface PluginExecutor {

  /**
   * Runs {@code plugin} and waits for it.
   *
   * @param env the complete environment of the plugin (nothing is inherited)
   * @return the exit code and captured output, whatever the exit code was
   * @throws dev.cnioperator.cni.CniException with {@code PLUGIN_TIMEOUT} when the plugin was killed
   *     after {@code timeout}, or {@code IO_FAILURE} when it could not be started
   */
  ExecResult execute(Path plugin, Map<String, String> env, byte[] stdin, Duration timeout);
}
