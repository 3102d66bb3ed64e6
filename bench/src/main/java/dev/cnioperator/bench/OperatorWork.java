package dev.cnioperator.bench;

import dev.cnioperator.e2e.ProductProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the operator did, from its own Prometheus endpoint: reconciles started by each of its two
 * controllers (JOSDK's counter, by primary kind: Node, CniNetwork), and its writes. Counts, so that
 * a cost per change can be split into how much work there was and what each unit of it cost.
 */
final class OperatorWork {
  static final String NODE_RECONCILES = "Node reconciles";
  static final String NETWORK_RECONCILES = "CniNetwork reconciles";
  static final String CNINODE_WRITES = "CniNode writes";
  static final String STATUS_WRITES = "status writes";

  private static final Pattern PORT = Pattern.compile("metricsPort=(\\d+)");
  private static final Pattern STARTED =
      Pattern.compile(
          "^operator_sdk_reconciliations_started_total\\{[^}]*kind=\"([^\"]+)\"[^}]*\\} (\\S+)$");

  private final URI metrics;
  private final HttpClient http = HttpClient.newHttpClient();

  private OperatorWork(URI metrics) {
    this.metrics = metrics;
  }

  /** The operator's endpoint, from the port its start line logs. */
  static OperatorWork of(ProductProcess operator) throws IOException {
    Matcher m = PORT.matcher(Files.readString(operator.log()));
    if (!m.find()) {
      throw new IllegalStateException("no metricsPort in the operator's log " + operator.log());
    }
    return new OperatorWork(URI.create("http://127.0.0.1:" + m.group(1) + "/metrics"));
  }

  /** Counts so far, by kind of work. */
  Map<String, Double> now() throws IOException, InterruptedException {
    String text =
        http.send(
                HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Map<String, Double> counts = new LinkedHashMap<>();
    counts.put(NODE_RECONCILES, 0.0);
    counts.put(NETWORK_RECONCILES, 0.0);
    counts.put(CNINODE_WRITES, 0.0);
    counts.put(STATUS_WRITES, 0.0);
    boolean reconciles = false;
    for (String line : text.split("\n")) {
      Matcher started = STARTED.matcher(line);
      if (started.matches()) {
        reconciles = true;
        String key = started.group(1).equals("Node") ? NODE_RECONCILES : NETWORK_RECONCILES;
        counts.merge(key, Double.parseDouble(started.group(2)), Double::sum);
      } else if (line.startsWith("cni_operator_cninode_writes_total ")) {
        counts.put(CNINODE_WRITES, value(line));
      } else if (line.startsWith("cni_operator_status_writes_total ")) {
        counts.put(STATUS_WRITES, value(line));
      }
    }
    if (!reconciles) {
      throw new IllegalStateException("no reconcile counts at " + metrics + ": " + text);
    }
    return counts;
  }

  private static double value(String line) {
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }
}
