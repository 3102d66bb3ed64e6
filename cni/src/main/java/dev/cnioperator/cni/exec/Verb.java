package dev.cnioperator.cni.exec;

/** The CNI operations a runtime asks a plugin for, as passed in {@code CNI_COMMAND}. */
public enum Verb {
  ADD,
  DEL,
  CHECK,
  GC,
  STATUS,
  VERSION;

  /** Whether the verb acts on one attachment, so container id, netns and ifname are sent. */
  public boolean isAttachmentVerb() {
    return this == ADD || this == DEL || this == CHECK;
  }
}
