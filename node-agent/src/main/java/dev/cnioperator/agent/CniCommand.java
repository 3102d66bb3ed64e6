package dev.cnioperator.agent;

import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import dev.cnioperator.cni.tool.CniTool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code cni ...}: a cnitool-compatible command line for people debugging a node, run with the same
 * CNI runtime the agent uses.
 */
@Command(
    name = "cni",
    description = "cnitool-compatible: cni add|check|del|gc|status|version <net> <netns>.")
public final class CniCommand implements Callable<Integer> {

  @Parameters(
      paramLabel = "ARG",
      description =
          "The verb, the network name and the netns path, passed to the tool unchanged; the"
              + " tool reads CNI_PATH, NETCONFPATH, CNI_CACHE_DIR, CNI_ARGS, CNI_IFNAME and CAP_ARGS as"
              + " cnitool does.")
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() {
    return new CniTool(new ProcessPluginExecutor(), Duration.ofSeconds(60))
        .run(args.toArray(String[]::new), System.getenv(), System.out, System.err);
  }
}
