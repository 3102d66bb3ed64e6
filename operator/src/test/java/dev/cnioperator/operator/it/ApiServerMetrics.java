package dev.cnioperator.operator.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the API server itself counted, from its own metrics, not from the operator's account: the
 * writes it served, and the watches open on it.
 */
final class ApiServerMetrics {
  private static final Set<String> WRITE_VERBS = Set.of("APPLY", "PATCH", "POST", "PUT", "DELETE");
  private static final Pattern SAMPLE = Pattern.compile("^(\\w+)\\{(.*)\\} ([0-9.e+]+)$");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  private ApiServerMetrics() {}

  /**
   * Every create, update, patch, apply and delete of the cnioperator.dev resources and of Events
   * served so far (apiserver_request_total).
   */
  static long writes(KubernetesClient client) {
    return sum(
        client,
        "apiserver_request_total",
        l ->
            (l.getOrDefault("group", "").equals("cnioperator.dev")
                    || l.getOrDefault("resource", "").equals("events"))
                && WRITE_VERBS.contains(l.get("verb")));
  }

  /** The watches of {@code resource} open now (apiserver_longrunning_requests). */
  static long watches(KubernetesClient client, String resource) {
    return sum(
        client,
        "apiserver_longrunning_requests",
        l -> "WATCH".equals(l.get("verb")) && resource.equals(l.get("resource")));
  }

  private static long sum(
      KubernetesClient client, String metric, Predicate<Map<String, String>> selected) {
    long total = 0;
    for (String line : client.raw("/metrics").split("\n")) {
      Matcher sample = SAMPLE.matcher(line);
      if (!sample.matches() || !sample.group(1).equals(metric)) {
        continue;
      }
      Map<String, String> labels = new HashMap<>();
      Matcher label = LABEL.matcher(sample.group(2));
      while (label.find()) {
        labels.put(label.group(1), label.group(2));
      }
      if (selected.test(labels)) {
        total += (long) Double.parseDouble(sample.group(3));
      }
    }
    return total;
  }
}
