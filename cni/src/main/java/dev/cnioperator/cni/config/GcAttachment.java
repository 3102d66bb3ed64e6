package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * An attachment that is still valid, as a GC request lists it (SPEC-1.1.0.md Section 2, "GC"): the
 * {@code CNI_CONTAINERID} and {@code CNI_IFNAME} of its ADD.
 */
public record GcAttachment(String containerId, String ifName) {

  public GcAttachment {
    Objects.requireNonNull(containerId, "containerId");
    Objects.requireNonNull(ifName, "ifName");
  }

  /** The wire form, with libcni's key spelling: {@code {"containerID": ..., "ifname": ...}}. */
  ObjectNode toJson() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("containerID", containerId);
    node.put("ifname", ifName);
    return node;
  }
}
