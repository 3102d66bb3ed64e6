package dev.cnioperator.agent.conflist;

import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One conflist the CniNode spec says this node must hold, byte for byte.
 *
 * @param network the CniNetwork's name
 * @param fileName the file name in its directory, e.g. {@code 50-dbnet.conflist}
 * @param sha256 the sha256 the operator computed over {@code content}
 * @param content the rendered conflist
 * @param directory the configuration directory it goes to: the runtime's, or Multus's for a
 *     secondary network
 * @param appendTo the CNI name of another product's network its plugins are appended to, instead of
 *     a file of its own ({@code content} is then a list of that name holding the entries); null for
 *     a network of its own
 * @param appendAs how such entries are to be held: {@link AppendPlacement#DropIn} where the runtime
 *     loads drop-ins; null or {@link AppendPlacement#InPlace} for the entries in the target's file
 */
public record DesiredConflist(
    String network,
    String fileName,
    String sha256,
    String content,
    ConfigDirectory directory,
    String appendTo,
    AppendPlacement appendAs) {

  public DesiredConflist {
    directory = directory == null ? ConfigDirectory.Runtime : directory;
    appendAs = appendTo == null ? null : appendAs == null ? AppendPlacement.InPlace : appendAs;
  }

  public DesiredConflist(
      String network,
      String fileName,
      String sha256,
      String content,
      ConfigDirectory directory,
      String appendTo) {
    this(network, fileName, sha256, content, directory, appendTo, null);
  }

  /** Whether its entries are asked for as drop-in files where the runtime loads them. */
  public boolean asksForDropIns() {
    return appendAs == AppendPlacement.DropIn;
  }

  public DesiredConflist(
      String network, String fileName, String sha256, String content, ConfigDirectory directory) {
    this(network, fileName, sha256, content, directory, null, null);
  }

  /** Whether its plugins go into another product's file rather than a file of its own. */
  public boolean appended() {
    return appendTo != null;
  }

  /** A conflist of the runtime's directory. */
  public DesiredConflist(String network, String fileName, String sha256, String content) {
    this(network, fileName, sha256, content, ConfigDirectory.Runtime);
  }

  public byte[] bytes() {
    return content.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Why the entry's content cannot be used, whatever its placement: it does not match the sha256 it
   * was sent with. Empty when it does.
   */
  public Optional<String> contentProblem() {
    return Sha256.hex(bytes()).equals(sha256)
        ? Optional.empty()
        : Optional.of("content does not match its sha256 " + sha256);
  }
}
