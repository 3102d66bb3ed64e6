package dev.cnioperator.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A snapshot of the API server's own {@code apiserver_request_total}, summed over response codes,
 * by verb and resource ({@code GET cnioperator.dev/cninodes/status}). Differences of two snapshots
 * count what was served in between.
 */
record ApiRequestCounts(Map<String, Double> byVerbAndResource) {
  private static final Pattern LINE =
      Pattern.compile("^apiserver_request_total\\{(.*)\\} ([0-9.e+]+)$");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");
  private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE", "APPLY");

  static ApiRequestCounts scrape(KubernetesClient admin) {
    Map<String, Double> counts = new TreeMap<>();
    for (String line : admin.raw("/metrics").split("\n")) {
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = new TreeMap<>();
      Matcher l = LABEL.matcher(m.group(1));
      while (l.find()) {
        labels.put(l.group(1), l.group(2));
      }
      if (labels.getOrDefault("resource", "").isEmpty()) {
        continue; // non-resource URLs: /metrics (our own scrapes), /healthz, discovery
      }
      String key =
          labels.get("verb")
              + " "
              + (labels.getOrDefault("group", "").isEmpty() ? "core" : labels.get("group"))
              + "/"
              + labels.get("resource")
              + (labels.getOrDefault("subresource", "").isEmpty()
                  ? ""
                  : "/" + labels.get("subresource"));
      counts.merge(key, Double.parseDouble(m.group(2)), Double::sum);
    }
    return new ApiRequestCounts(counts);
  }

  /** What was served between {@code earlier} and this snapshot, zero rows left out. */
  ApiRequestCounts minus(ApiRequestCounts earlier) {
    Map<String, Double> d = new TreeMap<>();
    byVerbAndResource.forEach(
        (k, v) -> {
          double diff = v - earlier.byVerbAndResource.getOrDefault(k, 0.0);
          if (diff != 0) {
            d.put(k, diff);
          }
        });
    return new ApiRequestCounts(d);
  }

  /** Per verb and resource, the median of {@code windows} (a window without the row counts 0). */
  static ApiRequestCounts median(List<ApiRequestCounts> windows) {
    Set<String> keys = new TreeSet<>();
    windows.forEach(w -> keys.addAll(w.byVerbAndResource.keySet()));
    Map<String, Double> m = new TreeMap<>();
    for (String k : keys) {
      Samples s = new Samples();
      windows.forEach(w -> s.add(w.get(k)));
      m.put(k, s.median());
    }
    return new ApiRequestCounts(m);
  }

  double get(String key) {
    return byVerbAndResource.getOrDefault(key, 0.0);
  }

  static boolean isWrite(String key) {
    return WRITES.contains(key.substring(0, key.indexOf(' ')));
  }
}
