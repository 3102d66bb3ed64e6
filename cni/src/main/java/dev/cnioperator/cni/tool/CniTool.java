package dev.cnioperator.cni.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.ConfigDirectory;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.PluginConfig;
import dev.cnioperator.cni.config.ValidationLevel;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.CniArg;
import dev.cnioperator.cni.exec.PluginExecutor;
import dev.cnioperator.cni.exec.PluginLocator;
import dev.cnioperator.cni.io.CniJson;
import dev.cnioperator.cni.result.Result;
import dev.cnioperator.cni.result.VersionResult;
import dev.cnioperator.cni.runtime.CniRuntime;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A command line compatible with libcni's {@code cnitool}: {@code add|check|del|gc|status <net>
 * <netns>} with {@code NETCONFPATH}, {@code CNI_PATH}, {@code CNI_IFNAME}, {@code CNI_ARGS} and
 * {@code CAP_ARGS} read the same way and the same container id, so an attachment made by one tool
 * is checked and deleted by the other. Adds {@code version <net>} (each plugin's VERSION) and
 * {@code CNI_CACHE_DIR} (libcni's cache directory, default {@code /var/lib/cni}).
 */
public final class CniTool {
  static final String DEFAULT_NETCONFPATH = "/etc/cni/net.d";
  static final String USAGE =
      "usage: cni add|check|del|gc|status|version <net> <netns>\n"
          + "  env: NETCONFPATH (default "
          + DEFAULT_NETCONFPATH
          + "), CNI_PATH, CNI_IFNAME (default eth0), CNI_ARGS (K=V;K2=V2),\n"
          + "       CAP_ARGS (JSON object), CNI_CACHE_DIR (default "
          + ResultCache.DEFAULT_DIR
          + ")";

  private static final Set<String> COMMANDS =
      Set.of("add", "check", "del", "gc", "status", "version");

  private final PluginExecutor executor;
  private final Duration timeout;

  public CniTool(PluginExecutor executor, Duration timeout) {
    this.executor = executor;
    this.timeout = timeout;
  }

  /** Runs one command; returns the process exit code (0 success, 1 failure, 2 usage). */
  public int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    if (args.length < 2
        || !COMMANDS.contains(args[0])
        || (args.length < 3 && needsNetns(args[0]))) {
      err.println(USAGE);
      return 2;
    }
    try {
      NetworkConfigList list =
          ConfigDirectory.load(
              Path.of(env.getOrDefault("NETCONFPATH", DEFAULT_NETCONFPATH)),
              args[1],
              ValidationLevel.EXECUTABLE);
      CniRuntime runtime =
          new CniRuntime(
              executor,
              PluginLocator.parseCniPath(env.get("CNI_PATH")),
              new ResultCache(
                  Path.of(env.getOrDefault("CNI_CACHE_DIR", ResultCache.DEFAULT_DIR.toString()))),
              timeout);
      switch (args[0]) {
        case "add" -> {
          Result result = runtime.addNetworkList(list, attachment(args[2], env));
          out.println(CniJson.PRETTY_WRITER.writeValueAsString(result.toJson()));
        }
        case "check" -> runtime.checkNetworkList(list, attachment(args[2], env));
        case "del" -> runtime.delNetworkList(list, attachment(args[2], env));
        case "gc" -> runtime.gcNetworkList(list, List.of());
        case "status" -> runtime.getStatusNetworkList(list);
        case "version" -> printVersions(runtime, list, out);
        default -> throw new IllegalStateException("unreachable: " + args[0]);
      }
      return 0;
    } catch (CniException e) {
      err.println(e.getMessage());
      return 1;
    } catch (IOException e) {
      err.println("cannot write output: " + e.getMessage());
      return 1;
    }
  }

  /**
   * cnitool's container id: "cnitool-" and the hex of the first 10 bytes of the SHA-512 of the
   * absolute, cleaned netns path.
   */
  public static String containerIdFor(String netns) {
    try {
      byte[] sum =
          MessageDigest.getInstance("SHA-512")
              .digest(absolute(netns).getBytes(StandardCharsets.UTF_8));
      return "cnitool-" + HexFormat.of().formatHex(sum, 0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-512", e);
    }
  }

  /** Go's {@code filepath.Abs}: relative to the working directory, then cleaned. */
  static String absolute(String path) {
    return Path.of(path).toAbsolutePath().normalize().toString();
  }

  private Attachment attachment(String netnsArg, Map<String, String> env) {
    String netns = absolute(netnsArg);
    // cnitool takes CNI_IFNAME when it is set at all, even empty; validation then refuses "".
    String ifName = env.containsKey("CNI_IFNAME") ? env.get("CNI_IFNAME") : "eth0";
    return new Attachment(
        containerIdFor(netns),
        netns,
        ifName,
        CniArg.parse(env.get("CNI_ARGS")),
        capabilityArgs(env.get("CAP_ARGS")));
  }

  private Map<String, JsonNode> capabilityArgs(String value) {
    Map<String, JsonNode> caps = new LinkedHashMap<>();
    if (value == null || value.isEmpty()) {
      return caps;
    }
    JsonNode node;
    try {
      node = CniJson.MAPPER.readTree(value);
    } catch (IOException e) {
      throw badCapArgs(e.getMessage());
    }
    if (node == null || !node.isObject()) {
      throw badCapArgs("not a JSON object");
    }
    node.properties().forEach(e -> caps.put(e.getKey(), e.getValue()));
    return caps;
  }

  private void printVersions(CniRuntime runtime, NetworkConfigList list, PrintStream out)
      throws IOException {
    var report = CniJson.MAPPER.createObjectNode();
    for (PluginConfig plugin : list.plugins()) {
      VersionResult v = runtime.getVersionInfo(plugin.type());
      var versions = report.putArray(plugin.type());
      v.supportedVersions().forEach(s -> versions.add(s.toString()));
    }
    out.println(CniJson.PRETTY_WRITER.writeValueAsString(report));
  }

  private static boolean needsNetns(String command) {
    return command.equals("add") || command.equals("check") || command.equals("del");
  }

  private static CniException badCapArgs(String why) {
    return new CniException(CniErrorCode.INVALID_ENVIRONMENT, "CAP_ARGS is not valid JSON", why);
  }
}
