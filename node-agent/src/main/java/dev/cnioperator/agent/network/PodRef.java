package dev.cnioperator.agent.network;

import dev.cnioperator.cni.exec.CniArg;
import java.util.List;

/**
 * The pod an attachment belongs to, from the K8S_POD_* keys of its CNI_ARGS; fields may be null.
 */
public record PodRef(String namespace, String name, String uid) {

  public static PodRef of(List<CniArg> args) {
    String ns = null;
    String name = null;
    String uid = null;
    for (CniArg a : args) {
      switch (a.key()) {
        case "K8S_POD_NAMESPACE" -> ns = a.value();
        case "K8S_POD_NAME" -> name = a.value();
        case "K8S_POD_UID" -> uid = a.value();
        default -> {}
      }
    }
    return new PodRef(ns, name, uid);
  }
}
