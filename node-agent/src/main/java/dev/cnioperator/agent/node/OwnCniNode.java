package dev.cnioperator.agent.node;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.runtime.client.CallDeadline;
import dev.cnioperator.runtime.watch.InformerRetry;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's access to its own CniNode, and nothing else of the cluster's CniNodes: a fresh read,
 * a watch by field selector on its name, and status writes with server-side apply.
 */
public final class OwnCniNode {
  /** The field manager of every status write, so ownership shows in managedFields. */
  public static final String FIELD_MANAGER = "cni-node-agent";

  private static final Logger LOG = LoggerFactory.getLogger(OwnCniNode.class);

  private final KubernetesClient client;
  private final String nodeName;
  private final CallDeadline deadline;

  /** {@code deadline} bounds each read and write; a watch is fabric8's to keep alive. */
  public OwnCniNode(KubernetesClient client, String nodeName, CallDeadline deadline) {
    this.client = client;
    this.nodeName = nodeName;
    this.deadline = deadline;
  }

  public String nodeName() {
    return nodeName;
  }

  /**
   * A fresh read of this node's CniNode; empty when it does not exist.
   *
   * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API server cannot be
   *     reached, refuses, or has not answered within the deadline
   */
  public Optional<CniNode> fetch() {
    return Optional.ofNullable(
        deadline.call(
            "read CniNode " + nodeName,
            () -> client.resources(CniNode.class).withName(nodeName).get()));
  }

  /** What the watch tells the agent. */
  public interface WatchListener {
    /**
     * The CniNode as the watch just delivered it ({@code null} once deleted), and whether the
     * change can ask for other files: an add, a delete, a new spec (generation), a deletion mark or
     * another object of the same name. Not a status update: every status write of the agent itself
     * would otherwise come back as one more pass, on every node at once, while the operator is
     * still writing the other nodes' specs. A status someone else changed is rewritten by the next
     * scheduled pass.
     */
    void seen(CniNode latest, boolean specMayDiffer);
  }

  /**
   * Watches this node's CniNode only; started and synced on return. A watch that breaks once synced
   * is retried ({@link InformerRetry}): the scheduled passes read the CniNode anyway, but without
   * the watch a new spec waits for the next of them.
   */
  public SharedIndexInformer<CniNode> watch(WatchListener listener, long resyncMillis) {
    SharedIndexInformer<CniNode> informer =
        client
            .resources(CniNode.class)
            .withField("metadata.name", nodeName)
            .runnableInformer(resyncMillis);
    informer.exceptionHandler(InformerRetry.AFTER_START);
    informer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(CniNode obj) {
            listener.seen(obj, true);
          }

          @Override
          public void onUpdate(CniNode oldObj, CniNode newObj) {
            listener.seen(newObj, specMayDiffer(oldObj, newObj));
          }

          @Override
          public void onDelete(CniNode obj, boolean deletedFinalStateUnknown) {
            listener.seen(null, true);
          }
        });
    return informer.run();
  }

  /** Whether {@code after} may ask for other files than {@code before}: any but a status update. */
  static boolean specMayDiffer(CniNode before, CniNode after) {
    var b = before.getMetadata();
    var a = after.getMetadata();
    return !Objects.equals(b.getGeneration(), a.getGeneration())
        || b.getGeneration() == null
        || !Objects.equals(b.getUid(), a.getUid())
        || !Objects.equals(b.getDeletionTimestamp(), a.getDeletionTimestamp());
  }

  /**
   * Writes {@code status} when it differs from {@code current}, the status the API server holds;
   * true when it wrote. Server-side apply of an object holding only our status, so fields we stop
   * reporting are removed.
   *
   * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API server cannot be
   *     reached, refuses, or has not answered within the deadline
   */
  public boolean publishStatus(CniNodeStatus current, CniNodeStatus status) {
    if (Objects.equals(current, status)) {
      return false;
    }
    CniNode patch = new CniNode();
    patch.setMetadata(new ObjectMetaBuilder().withName(nodeName).build());
    patch.setStatus(status);
    PatchContext apply =
        new PatchContext.Builder()
            .withPatchType(PatchType.SERVER_SIDE_APPLY)
            .withFieldManager(FIELD_MANAGER)
            .withForce(true)
            .build();
    deadline.call(
        "write the status of CniNode " + nodeName,
        () -> client.resource(patch).subresource("status").patch(apply));
    LOG.info("event=status-written node={}", nodeName);
    return true;
  }
}
