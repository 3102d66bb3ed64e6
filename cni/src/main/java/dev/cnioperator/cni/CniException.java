package dev.cnioperator.cni;

/**
 * Every failure this library reports: a CNI error with the spec's {@code code}, {@code msg} and
 * {@code details} (SPEC-1.1.0.md, Section 6), whether a plugin returned it or the runtime made it.
 * Subclasses say where it came from; callers map it to conditions and Events in one place.
 */
public class CniException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int code;
  private final String msg;
  private final String details;

  public CniException(int code, String msg, String details) {
    super(format(code, msg, details));
    this.code = code;
    this.msg = msg == null ? "" : msg;
    this.details = details == null ? "" : details;
  }

  public CniException(CniErrorCode code, String msg, String details) {
    this(code.code(), msg, details);
  }

  public CniException(CniErrorCode code, String msg, String details, Throwable cause) {
    this(code.code(), msg, details);
    initCause(cause);
  }

  public int code() {
    return code;
  }

  public String msg() {
    return msg;
  }

  public String details() {
    return details;
  }

  private static String format(int code, String msg, String details) {
    String base = "CNI error " + code + ": " + (msg == null ? "" : msg);
    return details == null || details.isEmpty() ? base : base + " (" + details + ")";
  }
}
