package dev.cnioperator.api.v1alpha1;

/** The CNI network name rule (SPEC section 1), shared by the schema and the operator. */
public final class NetworkNames {

  /** Starts with a letter or digit, then letters, digits, '_', '.' or '-'. */
  public static final String PATTERN = "^[a-zA-Z0-9][a-zA-Z0-9_.\\-]*$";

  /** Leaves room for "NN-" and ".conflist" within a 255-byte file name, with margin. */
  public static final int MAX_LENGTH = 200;

  /**
   * A Kubernetes object name (DNS subdomain, RFC 1123), which a Multus network's name must be: it
   * names the NetworkAttachmentDefinitions, and Multus matches the configuration by that name.
   */
  public static final String DNS_SUBDOMAIN =
      "^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

  private NetworkNames() {}
}
