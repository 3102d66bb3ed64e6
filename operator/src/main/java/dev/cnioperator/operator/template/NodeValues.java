package dev.cnioperator.operator.template;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The values of one Node that a CniNetwork may use: its name, pod CIDRs (spec.podCIDRs, or
 * spec.podCIDR on servers that set only that), InternalIP addresses, labels and annotations.
 */
public record NodeValues(
    String name,
    List<String> podCidrs,
    List<String> internalIps,
    Map<String, String> labels,
    Map<String, String> annotations) {

  public NodeValues {
    podCidrs = List.copyOf(podCidrs);
    internalIps = List.copyOf(internalIps);
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
  }

  /**
   * A node with every value present (dual-stack, and every label and annotation, valued "sample"):
   * a template is validated as rendered for it, with the first slice of its spec.nodeSlices ({@link
   * dev.cnioperator.operator.slices.SliceOfNode#sample}).
   */
  public static final NodeValues SAMPLE =
      new NodeValues(
          "sample-node",
          List.of("10.0.0.0/24", "fd00::/64"),
          List.of("192.0.2.10", "2001:db8::10"),
          Map.of(),
          Map.of());

  /** The values of {@code node} as the API server holds them. */
  public static NodeValues of(Node node) {
    List<String> cidrs = List.of();
    List<String> ips = List.of();
    if (node.getSpec() != null) {
      List<String> all = node.getSpec().getPodCIDRs();
      if (all != null && !all.isEmpty()) {
        cidrs = all;
      } else if (node.getSpec().getPodCIDR() != null && !node.getSpec().getPodCIDR().isBlank()) {
        cidrs = List.of(node.getSpec().getPodCIDR());
      }
    }
    if (node.getStatus() != null && node.getStatus().getAddresses() != null) {
      ips =
          node.getStatus().getAddresses().stream()
              .filter(a -> "InternalIP".equals(a.getType()))
              .map(NodeAddress::getAddress)
              .filter(Objects::nonNull)
              .toList();
    }
    return new NodeValues(
        node.getMetadata().getName(),
        cidrs,
        ips,
        Objects.requireNonNullElse(node.getMetadata().getLabels(), Map.of()),
        Objects.requireNonNullElse(node.getMetadata().getAnnotations(), Map.of()));
  }

  /** The value of label {@code key}; the sample node has every label. */
  Optional<String> label(String key) {
    return this == SAMPLE ? Optional.of("sample") : Optional.ofNullable(labels.get(key));
  }

  /** The value of annotation {@code key}; the sample node has every annotation. */
  Optional<String> annotation(String key) {
    return this == SAMPLE ? Optional.of("sample") : Optional.ofNullable(annotations.get(key));
  }

  /** Whether {@code cidr} is an IPv6 prefix. */
  static boolean isIpv6(String cidr) {
    return cidr.contains(":");
  }
}
