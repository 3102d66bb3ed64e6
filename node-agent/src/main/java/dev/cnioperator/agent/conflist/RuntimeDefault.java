package dev.cnioperator.agent.conflist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.v1alpha1.RuntimeDefaultFile;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What the file the runtime loads as its pod network is: one of this agent's, another product's, or
 * Multus's, and then whether the copy of the pod network Multus holds in it is current.
 *
 * <p>Multus puts its primary network into its own configuration as the first of its {@code
 * delegates}, inline: its thick daemon generates {@code 00-multus.conf} that way from the first
 * file of the directory and writes it again when that file changes (it watches it), and a thin
 * install writes the same once, when its installer runs. Pods then get the copy, whatever the
 * network's own file says now. A Multus configuration that names its primary network ({@code
 * clusterNetwork}) instead of holding it reads the network at each ADD, and carries no copy.
 */
public final class RuntimeDefault {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The plugin types of Multus: the thin plugin, and the thick daemon's shim. */
  static final Set<String> MULTUS_TYPES = Set.of("multus", "multus-shim");

  private RuntimeDefault() {}

  /**
   * @param fileName the first file of the runtime's directory
   * @param content that file, empty if it went away since it was listed
   * @param ownFiles the file of each network of this agent in that directory, by CNI name
   * @param read a file of that directory by name, empty if it is not there
   */
  public static RuntimeDefaultFile describe(
      String fileName,
      Optional<byte[]> content,
      Map<String, String> ownFiles,
      Function<String, Optional<byte[]>> read) {
    RuntimeDefaultFile file = new RuntimeDefaultFile().setFileName(fileName);
    JsonNode root = content.map(RuntimeDefault::parse).orElse(null);
    if (root == null || !root.isObject()) {
      return file.setMessage(
          content.isEmpty()
              ? "gone since the directory was listed"
              : "not a JSON object: the runtime cannot load it, and takes no pod network from it");
    }
    String name = text(root, "name");
    file.setNetworkName(name);
    if (name != null && fileName.equals(ownFiles.get(name))) {
      return file.setMessage("the file of network " + name + ", written by this agent");
    }
    JsonNode multus = multusEntry(root);
    if (multus == null) {
      return file.setMessage("another product's file: this agent does not manage network " + name);
    }
    JsonNode delegate = multus.path("delegates").path(0);
    if (!delegate.isObject()) {
      String cluster = text(multus, "clusterNetwork");
      return file.setMessage(
          "Multus's, which reads its primary network"
              + (cluster == null ? "" : " (" + cluster + ")")
              + " at each pod's ADD and holds no copy of it");
    }
    String copied = text(delegate, "name");
    String own = copied == null ? null : ownFiles.get(copied);
    if (own == null) {
      return file.setMessage(
          "Multus's, with a copy of network "
              + copied
              + " as its primary network, which this agent does not manage");
    }
    boolean current =
        read.apply(own).map(RuntimeDefault::parse).filter(now -> same(delegate, now)).isPresent();
    file.setCopyOf(copied).setCopyCurrent(current);
    return file.setMessage(
        current
            ? "Multus's, with a copy of network "
                + copied
                + " as its primary network that is "
                + own
                + " as it is now"
            : "Multus's, with a copy of network "
                + copied
                + " as its primary network that differs from "
                + own
                + " now: the runtime's pods get the copy until Multus writes "
                + fileName
                + " again (its thick daemon does when "
                + own
                + " changes; a thin install only when its installer runs again)");
  }

  /** The Multus entry of a configuration: the file itself ({@code .conf}) or its first plugin. */
  private static JsonNode multusEntry(JsonNode root) {
    if (isMultus(root)) {
      return root;
    }
    JsonNode first = root.path("plugins").path(0);
    return isMultus(first) ? first : null;
  }

  private static boolean isMultus(JsonNode entry) {
    String type = text(entry, "type");
    return type != null && MULTUS_TYPES.contains(type);
  }

  /**
   * Whether Multus's copy is the network's file: equal as JSON, but for {@code cniVersion}, which
   * Multus may set on its delegates to its own ({@code forceCNIVersion}).
   */
  private static boolean same(JsonNode copy, JsonNode file) {
    if (!file.isObject()) {
      return false;
    }
    ObjectNode a = ((ObjectNode) copy).deepCopy();
    ObjectNode b = ((ObjectNode) file).deepCopy();
    a.remove("cniVersion");
    b.remove("cniVersion");
    return a.equals(b);
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v != null && v.isTextual() ? v.textValue() : null;
  }

  private static JsonNode parse(byte[] bytes) {
    try {
      return JSON.readTree(bytes);
    } catch (IOException e) {
      return null;
    }
  }
}
