package dev.cnioperator.cni.config;

/**
 * A rule a configuration can break, named by the short stable id that errors and status show (such
 * as {@code reserved-key}). The library's rules are {@link ConflistRule}; a program that checks
 * more (a CniNetwork's node selector, say) names its own rules with an enum of its own.
 */
public interface ConfigRule {
  /** The id as people see it, in brackets after a problem's message. */
  String id();
}
