package dev.cnioperator.api.v1alpha1;

/**
 * The rule for plugin binary names ('type', 'ipam.type', CniPlugin binaryName): a single safe file
 * name, so no '/', no '\' and no "..", shared by the schema and the operator.
 */
public final class PluginNames {

  /** Letters, digits, '_' and '-', in dot-separated non-empty parts. */
  public static final String PATTERN = "^[a-zA-Z0-9][a-zA-Z0-9_\\-]*(\\.[a-zA-Z0-9_\\-]+)*$";

  public static final int MAX_LENGTH = 128;

  private PluginNames() {}
}
