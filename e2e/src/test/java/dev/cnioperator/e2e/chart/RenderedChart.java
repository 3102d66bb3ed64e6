package dev.cnioperator.e2e.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.e2e.Helm;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;

/** The objects of a rendered chart (helm template or helm get manifest), in their order. */
record RenderedChart(List<JsonNode> documents) {
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** {@code helm template} of the chart with {@code args}; fails when helm refuses the values. */
  static RenderedChart render(Helm helm, String... args) {
    return parse(helm.template(args).orThrow("helm template").stdout());
  }

  static RenderedChart parse(String manifests) {
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(manifests)) {
      while (it.hasNext()) {
        JsonNode doc = it.next();
        if (doc != null && doc.isObject() && doc.has("kind")) {
          docs.add(doc);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("rendered chart is not YAML", e);
    }
    return new RenderedChart(List.copyOf(docs));
  }

  /** Every object of {@code kind}. */
  List<JsonNode> ofKind(String kind) {
    return documents.stream().filter(d -> kind.equals(d.path("kind").asText())).toList();
  }

  /** The only object of {@code kind}, as the fabric8 model type. */
  <T extends HasMetadata> T single(String kind, Class<T> type) {
    List<JsonNode> found = ofKind(kind);
    if (found.size() != 1) {
      throw new NoSuchElementException(
          "expected one " + kind + " in the rendered chart, found " + found.size());
    }
    return SERIALIZATION.convertValue(found.get(0), type);
  }

  /** The one container of the only workload (Deployment, DaemonSet) of {@code kind}. */
  Container onlyContainer(String kind) {
    List<JsonNode> found = ofKind(kind);
    JsonNode containers =
        found.size() == 1 ? found.get(0).at("/spec/template/spec/containers") : null;
    if (containers == null || containers.size() != 1) {
      throw new NoSuchElementException("expected one " + kind + " with one container");
    }
    return SERIALIZATION.convertValue(containers.get(0), Container.class);
  }

  /** The object of {@code kind} whose name ends with {@code nameSuffix}, as the model type. */
  <T extends HasMetadata> T named(String kind, String nameSuffix, Class<T> type) {
    return ofKind(kind).stream()
        .filter(d -> d.path("metadata").path("name").asText().endsWith(nameSuffix))
        .findFirst()
        .map(d -> SERIALIZATION.convertValue(d, type))
        .orElseThrow(
            () -> new NoSuchElementException("no " + kind + " named *" + nameSuffix + " rendered"));
  }
}
