package dev.cnioperator.cri.plugin;

import java.util.Objects;

/**
 * A ResourceClaim as the kubelet names it in {@code NodePrepareResources} and {@code
 * NodeUnprepareResources}: its identity only. The kubelet sends neither the allocation nor the pod;
 * a driver reads the claim from the API server (by namespace and name, then checks the uid) to
 * learn which of its devices were allocated.
 *
 * @param namespace the claim's namespace
 * @param uid the claim's {@code metadata.uid}; results are keyed by it
 * @param name the claim's name
 */
public record ClaimRef(String namespace, String uid, String name) {
  public ClaimRef {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(uid, "uid");
    Objects.requireNonNull(name, "name");
  }

  @Override
  public String toString() {
    return namespace + "/" + name + " (" + uid + ")";
  }
}
