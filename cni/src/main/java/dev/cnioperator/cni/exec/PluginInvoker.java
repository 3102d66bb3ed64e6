package dev.cnioperator.cni.exec;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import dev.cnioperator.cni.result.ErrorResult;
import dev.cnioperator.cni.result.PluginErrors;
import dev.cnioperator.cni.result.Result;
import dev.cnioperator.cni.result.Results;
import dev.cnioperator.cni.result.VersionResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one plugin for one verb following SPEC-1.1.0.md Section 2 (libcni's {@code invoke}): finds
 * the binary on {@code CNI_PATH}, builds the {@code CNI_*} environment, turns a failed run into a
 * {@link PluginException} carrying the plugin's own error (or code 999 when it printed none), and
 * reads ADD and VERSION output.
 */
public final class PluginInvoker {
  private static final Logger LOG = LoggerFactory.getLogger(PluginInvoker.class);
  private static final int SHOWN_OUTPUT_BYTES = 256;

  private final PluginExecutor executor;
  private final PluginLocator locator;
  private final Duration timeout;

  public PluginInvoker(PluginExecutor executor, PluginLocator locator, Duration timeout) {
    this.executor = executor;
    this.locator = locator;
    this.timeout = timeout;
  }

  public PluginLocator locator() {
    return locator;
  }

  /**
   * Runs plugin {@code type} with {@code verb}.
   *
   * @param attachment the attachment for ADD, DEL and CHECK; ignored (may be null) otherwise
   * @return the plugin's stdout after a zero exit
   * @throws PluginException when the plugin exited non-zero
   */
  public byte[] invoke(String type, Verb verb, Attachment attachment, byte[] stdin) {
    Path binary = locator.find(type);
    Map<String, String> env = environment(verb, attachment);
    long started = System.nanoTime();
    ExecResult result = executor.execute(binary, env, stdin, timeout);
    LOG.debug(
        "event=plugin-exec plugin={} verb={} container={} exit={} millis={}",
        type,
        verb,
        attachment == null ? "" : attachment.containerId(),
        result.exitCode(),
        (System.nanoTime() - started) / 1_000_000);
    if (!result.succeeded()) {
      throw failure(type, verb, result);
    }
    if (result.stderr().length > 0) {
      // libcni copies a successful plugin's stderr to its own; here it is a debug log line.
      LOG.debug(
          "event=plugin-stderr plugin={} verb={} stderr=\"{}\"", type, verb, result.stderrText());
    }
    return result.stdout();
  }

  /**
   * A plugin's ADD stdout as a result (libcni's {@code ExecPluginWithResult}): a result without
   * {@code cniVersion} is taken to be in the request's version.
   *
   * @throws PluginException INVALID_PLUGIN_OUTPUT showing what the plugin printed
   */
  public Result parseResult(String type, byte[] stdout, CniVersion requestVersion) {
    try {
      return Results.parse(stdout, requestVersion);
    } catch (CniException e) {
      throw invalidOutput(type, Verb.ADD, stdout, e);
    }
  }

  /**
   * VERSION of one plugin (libcni's {@code GetVersionInfo}); a plugin too old to know VERSION
   * supports 0.1.0 only.
   */
  public VersionResult versionInfo(String type) {
    byte[] stdin =
        ("{\"cniVersion\":\"" + CniVersion.LATEST + "\"}").getBytes(StandardCharsets.UTF_8);
    byte[] stdout;
    try {
      stdout = invoke(type, Verb.VERSION, null, stdin);
    } catch (PluginException e) {
      if (e.msg().equals("unknown CNI_COMMAND: VERSION")) {
        return VersionResult.ofPluginWithoutVersionCommand();
      }
      throw e;
    }
    try {
      return Results.parseVersion(stdout);
    } catch (CniException e) {
      throw invalidOutput(type, Verb.VERSION, stdout, e);
    }
  }

  private static PluginException invalidOutput(
      String type, Verb verb, byte[] stdout, CniException cause) {
    PluginException e =
        new PluginException(
            CniErrorCode.INVALID_PLUGIN_OUTPUT.code(),
            "plugin " + type + " printed no valid " + verb + " result: " + cause.msg(),
            "stdout began with: " + firstBytes(stdout),
            type,
            verb,
            0,
            "");
    e.initCause(cause);
    return e;
  }

  /** The environment of SPEC-1.1.0.md Section 2 for this verb, and nothing else. */
  Map<String, String> environment(Verb verb, Attachment attachment) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("CNI_COMMAND", verb.name());
    env.put("CNI_PATH", locator.cniPathValue());
    if (verb.isAttachmentVerb()) {
      env.put("CNI_CONTAINERID", attachment.containerId());
      env.put("CNI_NETNS", attachment.netns());
      env.put("CNI_IFNAME", attachment.ifName());
      env.put("CNI_ARGS", attachment.cniArgsValue());
    } else if (verb == Verb.VERSION) {
      // Plugins built against an old skel demanded these even for VERSION; libcni sends dummies.
      env.put("CNI_NETNS", "dummy");
      env.put("CNI_IFNAME", "dummy");
    }
    return env;
  }

  /** Decodes a failed run: the plugin's error from stdout, or a 999 saying what it printed. */
  PluginException failure(String type, Verb verb, ExecResult result) {
    String stderr = result.stderrText();
    Optional<ErrorResult> error = PluginErrors.decode(result.stdout());
    if (error.isPresent()) {
      ErrorResult e = error.get();
      return new PluginException(
          e.code(), e.msg(), e.details(), type, verb, result.exitCode(), stderr);
    }
    String printed =
        result.stdout().length == 0
            ? "stdout was empty"
            : "stdout began with: " + firstBytes(result.stdout());
    return new PluginException(
        CniErrorCode.INVALID_PLUGIN_OUTPUT.code(),
        "plugin " + type + " failed with exit code " + result.exitCode() + " and no CNI error",
        printed,
        type,
        verb,
        result.exitCode(),
        stderr);
  }

  /** The first bytes of some plugin output, for an error message. */
  public static String firstBytes(byte[] output) {
    int n = Math.min(output.length, SHOWN_OUTPUT_BYTES);
    String shown = new String(output, 0, n, StandardCharsets.UTF_8);
    return "\"" + shown + (output.length > n ? "...\"" : "\"");
  }
}
