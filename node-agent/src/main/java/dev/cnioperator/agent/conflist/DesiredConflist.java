package dev.cnioperator.agent.conflist;

import java.nio.charset.StandardCharsets;

/**
 * One conflist the CniNode spec says this node must hold, byte for byte.
 *
 * @param network the CniNetwork's name
 * @param fileName the file name in the conf dir, e.g. {@code 50-dbnet.conflist}
 * @param sha256 the sha256 the operator computed over {@code content}
 * @param content the rendered conflist
 */
public record DesiredConflist(String network, String fileName, String sha256, String content) {

  public byte[] bytes() {
    return content.getBytes(StandardCharsets.UTF_8);
  }
}
