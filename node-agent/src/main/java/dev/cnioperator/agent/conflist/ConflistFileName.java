package dev.cnioperator.agent.conflist;

import java.util.List;
import java.util.Optional;

/** The file names the agent accepts in the conf dir and the order runtimes read them in. */
public final class ConflistFileName {
  /** The extensions libcni's {@code ConfFiles} reads; everything else in the dir is ignored. */
  public static final List<String> RUNTIME_EXTENSIONS = List.of(".conf", ".conflist", ".json");

  private ConflistFileName() {}

  /** Why {@code name} is not a safe conflist file name, or empty when it is. */
  public static Optional<String> problem(String name) {
    if (name == null || name.isBlank()) {
      return Optional.of("fileName is empty");
    }
    if (name.contains("/") || name.contains("\\") || name.contains("\0")) {
      return Optional.of("fileName " + name + " must be a plain file name, without a directory");
    }
    if (name.startsWith(".")) {
      return Optional.of("fileName " + name + " must not start with a dot");
    }
    if (!name.endsWith(".conflist")) {
      return Optional.of("fileName " + name + " must end in .conflist");
    }
    return Optional.empty();
  }

  /**
   * True for a file a container runtime would load as a network configuration, and Multus as the
   * configuration of a config-less NetworkAttachmentDefinition: libcni's last extension.
   */
  public static boolean isReadByRuntimes(String name) {
    // libcni matches the extension only; it does not skip dot files.
    return RUNTIME_EXTENSIONS.stream().anyMatch(name::endsWith);
  }

  /**
   * The file containerd and CRI-O take as the default pod network: the first in lexical (byte)
   * order of the files they read.
   */
  public static Optional<String> defaultNetworkFile(List<String> namesInConfDir) {
    return namesInConfDir.stream().filter(ConflistFileName::isReadByRuntimes).sorted().findFirst();
  }
}
