package dev.cnioperator.operator.multus;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import io.fabric8.kubernetes.api.model.Namespace;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The Namespaces informer of the CniNetwork reconciler: a namespace that appears, goes, or whose
 * labels change reconciles every Multus network, since it may now be chosen or no longer be.
 */
public final class MultusNamespaces {
  private MultusNamespaces() {}

  public static InformerEventSource<Namespace, CniNetwork> eventSource(
      EventSourceContext<CniNetwork> context) {
    var namespaces =
        InformerEventSourceConfiguration.from(Namespace.class, CniNetwork.class)
            .withSecondaryToPrimaryMapper(
                (Namespace n) ->
                    context
                        .getPrimaryCache()
                        .list()
                        .filter(
                            network -> network.getSpec() != null && network.getSpec().isMultus())
                        .map(ResourceID::fromResource)
                        .collect(Collectors.toSet()))
            .withOnUpdateFilter(MultusNamespaces::choosingChanged)
            .build();
    return new InformerEventSource<>(namespaces, context);
  }

  /** Labels select a namespace; one being deleted no longer takes definitions. */
  static boolean choosingChanged(Namespace newer, Namespace older) {
    return !Objects.equals(newer.getMetadata().getLabels(), older.getMetadata().getLabels())
        || !Objects.equals(
            newer.getMetadata().getDeletionTimestamp(), older.getMetadata().getDeletionTimestamp());
  }
}
