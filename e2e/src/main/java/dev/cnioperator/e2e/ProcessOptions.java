package dev.cnioperator.e2e;

import dev.cnioperator.testkit.ApiServerProxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a test changes about how a product process runs, for fault and security tests: extra program
 * flags, JVM options, environment, working directory, a command it runs under (such as {@code
 * setpriv} to drop root) and an {@link ApiServerProxy} through which it reaches the API server.
 */
public record ProcessOptions(
    List<String> args,
    List<String> jvmOptions,
    Map<String, String> environment,
    Path workingDir,
    List<String> runUnder,
    ApiServerProxy apiServer) {

  /** The product's processes as {@link LocalProduct} runs them by default. */
  public static final ProcessOptions DEFAULT =
      new ProcessOptions(List.of(), List.of(), Map.of(), null, List.of(), null);

  public ProcessOptions {
    args = List.copyOf(args);
    jvmOptions = List.copyOf(jvmOptions);
    environment = Map.copyOf(environment);
    runUnder = List.copyOf(runUnder);
  }

  /** Adds program flags after the ones the harness passes (picocli keeps the last value). */
  public ProcessOptions withArgs(String... more) {
    return new ProcessOptions(
        concat(args, more), jvmOptions, environment, workingDir, runUnder, apiServer);
  }

  public ProcessOptions withJvmOptions(String... more) {
    return new ProcessOptions(
        args, concat(jvmOptions, more), environment, workingDir, runUnder, apiServer);
  }

  public ProcessOptions withEnvironment(String name, String value) {
    Map<String, String> env = new HashMap<>(environment);
    env.put(name, value);
    return new ProcessOptions(args, jvmOptions, env, workingDir, runUnder, apiServer);
  }

  public ProcessOptions inDirectory(Path dir) {
    return new ProcessOptions(args, jvmOptions, environment, dir, runUnder, apiServer);
  }

  /** Runs the java command as the last argument of {@code command}, e.g. setpriv's. */
  public ProcessOptions runUnder(String... command) {
    return new ProcessOptions(
        args, jvmOptions, environment, workingDir, List.of(command), apiServer);
  }

  /** Reaches the API server through {@code proxy}, so a test can cut it. */
  public ProcessOptions through(ApiServerProxy proxy) {
    return new ProcessOptions(args, jvmOptions, environment, workingDir, runUnder, proxy);
  }

  private static List<String> concat(List<String> first, String... more) {
    List<String> all = new ArrayList<>(first);
    all.addAll(List.of(more));
    return all;
  }
}
