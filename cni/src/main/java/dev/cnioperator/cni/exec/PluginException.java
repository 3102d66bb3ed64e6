package dev.cnioperator.cni.exec;

import dev.cnioperator.cni.CniException;

/**
 * A plugin reported failure: its CNI error ({@code code}, {@code msg}, {@code details}) exactly as
 * it printed it, or code 999 when it printed no valid error, together with which plugin, which
 * verb, its exit code and the tail of its stderr (those only in {@link #getMessage()}).
 */
public class PluginException extends CniException {
  private static final long serialVersionUID = 1L;

  private final String plugin;
  private final Verb verb;
  private final int exitCode;
  private final String stderrTail;

  public PluginException(
      int code,
      String msg,
      String details,
      String plugin,
      Verb verb,
      int exitCode,
      String stderrTail) {
    super(code, msg, details);
    this.plugin = plugin;
    this.verb = verb;
    this.exitCode = exitCode;
    this.stderrTail = stderrTail == null ? "" : stderrTail.strip();
  }

  /** The plugin's {@code type}. */
  public String plugin() {
    return plugin;
  }

  public Verb verb() {
    return verb;
  }

  public int exitCode() {
    return exitCode;
  }

  public String stderrTail() {
    return stderrTail;
  }

  @Override
  public String getMessage() {
    String context = " [plugin=" + plugin + " verb=" + verb + " exit=" + exitCode;
    if (!stderrTail.isEmpty()) {
      context += " stderr=" + stderrTail;
    }
    return super.getMessage() + context + "]";
  }
}
