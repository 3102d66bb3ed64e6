package dev.cnioperator.operator.node;

import dev.cnioperator.api.v1alpha1.CniNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.health.Status;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.EventHandler;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One controller's view of the shared {@link CniNodeInformer}: it maps each CniNode event to the
 * controller's primaries, as an informer event source would, and reads CniNodes from the shared
 * cache.
 *
 * @param <P> the controller's primary kind
 */
public final class CniNodeEventSource<P extends HasMetadata> extends AbstractEventSource<CniNode, P>
    implements ResourceEventHandler<CniNode> {
  private final CniNodeInformer shared;
  private final Function<CniNode, Set<ResourceID>> toPrimaries;
  private volatile SharedIndexInformer<CniNode> informer;

  /**
   * {@code toPrimaries}: the primaries a CniNode's event reconciles; they are also the primaries it
   * is a secondary resource of.
   */
  public CniNodeEventSource(
      CniNodeInformer shared, Function<CniNode, Set<ResourceID>> toPrimaries) {
    super(CniNode.class, "cninodes");
    this.shared = shared;
    this.toPrimaries = toPrimaries;
  }

  @Override
  public synchronized void start() {
    if (informer != null) {
      return;
    }
    SharedIndexInformer<CniNode> acquired = shared.acquire();
    // Added to a running informer, the handler is first told of every CniNode it holds.
    acquired.addEventHandler(this);
    informer = acquired;
    super.start();
  }

  @Override
  public synchronized void stop() {
    super.stop();
    if (informer != null) {
      informer.removeEventHandler(this);
      informer = null;
      shared.release();
    }
  }

  /** Healthy while the shared informer runs, has listed once and is watching. */
  @Override
  public Status getStatus() {
    SharedIndexInformer<CniNode> current = informer;
    return isRunning()
            && current != null
            && current.isRunning()
            && current.hasSynced()
            && current.isWatching()
        ? Status.HEALTHY
        : Status.UNHEALTHY;
  }

  /** The cached CniNode of that name. */
  public Optional<CniNode> get(String name) {
    SharedIndexInformer<CniNode> current = informer;
    return current == null
        ? Optional.empty()
        : Optional.ofNullable(current.getStore().getByKey(name));
  }

  /** Every cached CniNode. */
  public Stream<CniNode> list() {
    SharedIndexInformer<CniNode> current = informer;
    return current == null ? Stream.empty() : current.getStore().list().stream();
  }

  @Override
  public Set<CniNode> getSecondaryResources(P primary) {
    ResourceID id = ResourceID.fromResource(primary);
    return list().filter(n -> toPrimaries.apply(n).contains(id)).collect(Collectors.toSet());
  }

  @Override
  public void onAdd(CniNode node) {
    if (accepted(node) && (onAddFilter == null || onAddFilter.accept(node))) {
      propagate(node);
    }
  }

  @Override
  public void onUpdate(CniNode before, CniNode now) {
    if (accepted(now) && (onUpdateFilter == null || onUpdateFilter.accept(now, before))) {
      propagate(now);
    }
  }

  @Override
  public void onDelete(CniNode node, boolean finalStateUnknown) {
    if (accepted(node)
        && (onDeleteFilter == null || onDeleteFilter.accept(node, finalStateUnknown))) {
      propagate(node);
    }
  }

  private boolean accepted(CniNode node) {
    return genericFilter == null || genericFilter.accept(node);
  }

  private void propagate(CniNode node) {
    EventHandler handler = getEventHandler();
    if (handler != null) {
      toPrimaries.apply(node).forEach(id -> handler.handleEvent(new Event(id)));
    }
  }
}
