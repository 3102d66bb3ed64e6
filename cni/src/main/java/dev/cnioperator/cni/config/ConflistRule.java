package dev.cnioperator.cni.config;

/**
 * Every rule the parser and {@link ConfigValidator} check, and whether it holds at every {@link
 * ValidationLevel} or is the spec's advice or this project's policy, which {@link
 * ValidationLevel#EXECUTABLE} drops. Being an enum, a misspelt rule cannot compile, so it cannot
 * move a rule from one kind to the other.
 */
public enum ConflistRule implements ConfigRule {
  MALFORMED_JSON("malformed-json", Kind.EXECUTION),
  WRONG_TYPE("wrong-type", Kind.EXECUTION),
  NESTING_DEPTH("nesting-depth", Kind.EXECUTION),
  MISSING_NAME("missing-name", Kind.EXECUTION),
  NAME_PATTERN("name-pattern", Kind.EXECUTION),
  MISSING_VERSION("missing-version", Kind.EXECUTION),
  UNKNOWN_VERSION("unknown-version", Kind.EXECUTION),
  UNSUPPORTED_VERSION("unsupported-version", Kind.EXECUTION),
  EMPTY_PLUGINS("empty-plugins", Kind.EXECUTION),
  MISSING_TYPE("missing-type", Kind.EXECUTION),
  UNSAFE_TYPE("unsafe-type", Kind.EXECUTION),
  CAPABILITIES_NOT_BOOLEAN("capabilities-not-boolean", Kind.EXECUTION),
  RESERVED_KEY("reserved-key", Kind.POLICY),
  DNS_SHAPE("dns-shape", Kind.POLICY),
  VERSION_MISMATCH("version-mismatch", Kind.POLICY),
  NAME_MISMATCH("name-mismatch", Kind.POLICY),
  CHECK_VERSION("check-version", Kind.POLICY),
  GC_VERSION("gc-version", Kind.POLICY),
  CNI_VERSIONS("cni-versions", Kind.POLICY),
  MISSING_IPAM_TYPE("missing-ipam-type", Kind.POLICY);

  /** Why a rule exists. */
  enum Kind {
    /** Without it this runtime cannot execute the list safely (libcni checks most of these too). */
    EXECUTION,
    /**
     * The spec's advice or this project's policy: a configuration someone else wrote may break it.
     */
    POLICY
  }

  private final String id;
  private final Kind kind;

  ConflistRule(String id, Kind kind) {
    this.id = id;
    this.kind = kind;
  }

  @Override
  public String id() {
    return id;
  }

  /** Whether {@link ValidationLevel#EXECUTABLE} drops this rule. */
  boolean isPolicy() {
    return kind == Kind.POLICY;
  }
}
