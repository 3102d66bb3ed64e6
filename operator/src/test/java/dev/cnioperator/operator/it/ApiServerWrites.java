package dev.cnioperator.operator.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts writes the API server itself served, from its apiserver_request_total metric: every
 * create, update, patch, apply and delete of the cnioperator.dev resources and of Events.
 */
final class ApiServerWrites {
  private static final Set<String> WRITE_VERBS = Set.of("APPLY", "PATCH", "POST", "PUT", "DELETE");
  private static final Pattern SAMPLE =
      Pattern.compile("^apiserver_request_total\\{(.*)\\} ([0-9.e+]+)$");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  private ApiServerWrites() {}

  static long count(KubernetesClient client) {
    long total = 0;
    for (String line : client.raw("/metrics").split("\n")) {
      Matcher sample = SAMPLE.matcher(line);
      if (!sample.matches()) {
        continue;
      }
      String verb = null;
      String group = "";
      String resource = "";
      Matcher label = LABEL.matcher(sample.group(1));
      while (label.find()) {
        switch (label.group(1)) {
          case "verb" -> verb = label.group(2);
          case "group" -> group = label.group(2);
          case "resource" -> resource = label.group(2);
          default -> {}
        }
      }
      boolean ours = group.equals("cnioperator.dev") || resource.equals("events");
      if (ours && WRITE_VERBS.contains(verb)) {
        total += (long) Double.parseDouble(sample.group(2));
      }
    }
    return total;
  }
}
