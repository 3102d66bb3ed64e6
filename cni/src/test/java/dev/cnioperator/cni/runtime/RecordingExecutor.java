package dev.cnioperator.cni.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.cni.exec.ExecResult;
import dev.cnioperator.cni.exec.PluginExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A fake {@link PluginExecutor} for unit tests of the runtime's decisions: it records every call
 * (plugin, environment, stdin as JSON) and answers from a table keyed by "plugin VERB"; a missing
 * entry answers exit 0 with empty stdout.
 */
final class RecordingExecutor implements PluginExecutor {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One recorded execution. */
  record Call(String plugin, String verb, Map<String, String> env, JsonNode stdin) {}

  private final Map<String, ExecResult> answers = new HashMap<>();
  final List<Call> calls = new ArrayList<>();

  /** Makes empty binaries for {@code plugins} in {@code dir}, so the locator finds them. */
  static void installBinaries(Path dir, String... plugins) {
    try {
      for (String plugin : plugins) {
        Files.write(dir.resolve(plugin), new byte[0]);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  RecordingExecutor answer(String plugin, String verb, String stdout) {
    return answer(plugin, verb, new ExecResult(0, bytes(stdout), new byte[0]));
  }

  RecordingExecutor answer(String plugin, String verb, ExecResult result) {
    answers.put(plugin + " " + verb, result);
    return this;
  }

  RecordingExecutor fail(String plugin, String verb, int code, String msg) {
    String error = "{\"cniVersion\":\"1.1.0\",\"code\":" + code + ",\"msg\":\"" + msg + "\"}";
    return answer(plugin, verb, new ExecResult(1, bytes(error), new byte[0]));
  }

  @Override
  public ExecResult execute(Path plugin, Map<String, String> env, byte[] stdin, Duration timeout) {
    String name = plugin.getFileName().toString();
    String verb = env.get("CNI_COMMAND");
    try {
      calls.add(new Call(name, verb, Map.copyOf(env), JSON.readTree(stdin)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return answers.getOrDefault(name + " " + verb, new ExecResult(0, new byte[0], new byte[0]));
  }

  /** "bridge ADD", "tuning ADD", ... in call order. */
  List<String> sequence() {
    return calls.stream().map(c -> c.plugin() + " " + c.verb()).toList();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
