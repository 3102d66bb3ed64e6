package dev.cnioperator.api.v1alpha1;

/** How a network declared onto another product's ({@code spec.appendTo}) is held on a node. */
public enum AppendPlacement {
  /** Its entries appended to the plugins of the other product's file, edited in place. */
  InPlace,
  /**
   * Its entries as libcni's drop-in files, {@code <conf dir>/<network name>/*.conf}, which the
   * runtime appends to that network's plugins; the other product's file is never touched.
   */
  DropIn
}
