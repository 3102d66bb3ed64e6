package dev.cnioperator.api.v1alpha1;

/** The CNI network name rule (SPEC section 1), shared by the schema and the operator. */
public final class NetworkNames {

  /** Starts with a letter or digit, then letters, digits, '_', '.' or '-'. */
  public static final String PATTERN = "^[a-zA-Z0-9][a-zA-Z0-9_.\\-]*$";

  /** Leaves room for "NN-" and ".conflist" within a 255-byte file name, with margin. */
  public static final int MAX_LENGTH = 200;

  private NetworkNames() {}
}
