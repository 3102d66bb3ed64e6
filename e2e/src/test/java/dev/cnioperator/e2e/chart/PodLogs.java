package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Container logs of real nodes, read from each node's {@code /var/log/pods} ({@code kubectl logs}
 * needs a kubelet client certificate the test API server lacks): what a failed wait prints.
 */
public final class PodLogs {
  private static final int TAIL_LINES = 25;

  private PodLogs() {}

  /** Every container log file under the node's {@code /var/log/pods}; none before the first pod. */
  static List<Path> files(KubeletNode node) throws IOException {
    Path pods = node.hostPath("/var/log/pods");
    if (!Files.isDirectory(pods)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(pods)) {
      return files.filter(f -> f.toString().endsWith(".log")).toList();
    }
  }

  /**
   * The last lines of every container log of {@code namespace} on every node of {@code cluster}.
   */
  public static String tails(KubeletCluster cluster, String namespace) {
    StringBuilder out = new StringBuilder();
    for (KubeletNode node : cluster.nodes()) {
      Path pods = node.hostPath("/var/log/pods");
      try {
        for (Path log :
            files(node).stream()
                .filter(f -> pods.relativize(f).toString().startsWith(namespace + "_"))
                .sorted()
                .toList()) {
          List<String> lines = Files.readAllLines(log);
          out.append("== ")
              .append(node.name())
              .append(' ')
              .append(pods.relativize(log))
              .append('\n');
          lines
              .subList(Math.max(0, lines.size() - TAIL_LINES), lines.size())
              .forEach(l -> out.append(l).append('\n'));
        }
      } catch (IOException | UncheckedIOException e) {
        out.append("(cannot read ").append(pods).append(": ").append(e).append(")\n");
      }
    }
    return out.toString();
  }

  /**
   * Copies every container log on every node of {@code cluster} into {@code kept/<node>/}, over
   * earlier copies: a pod's log stays readable after the run even when its pod was deleted later
   * (its log goes with it) or the nodes' roots were removed. Keeping logs fails nothing: what
   * cannot be copied is named on stdout.
   */
  public static void keep(KubeletCluster cluster, Path kept) {
    for (KubeletNode node : cluster.nodes()) {
      Path pods = node.hostPath("/var/log/pods");
      List<Path> logs;
      try {
        logs = files(node);
      } catch (IOException | UncheckedIOException e) {
        // A pod deleted during the walk takes its directory with it.
        System.out.printf("event=pod-logs-not-listed node=%s error=%s%n", node.name(), e);
        continue;
      }
      for (Path log : logs) {
        Path copy = kept.resolve(node.name()).resolve(pods.relativize(log).toString());
        try {
          Files.createDirectories(copy.getParent());
          Files.copy(log, copy, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
          System.out.printf("event=pod-log-not-kept log=%s error=%s%n", log, e);
        }
      }
    }
  }
}
