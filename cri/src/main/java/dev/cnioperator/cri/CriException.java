package dev.cnioperator.cri;

import java.nio.file.Path;

/**
 * A CRI call that did not give an answer: the runtime's socket is missing or unusable, the runtime
 * does not speak CRI v1, or it refused the request. It always names the socket, so a log line or a
 * status message says which runtime could not be read.
 */
public final class CriException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Why the call failed, coarse enough for a caller to decide (retry, report, give up). */
  public enum Reason {
    /** Nothing exists at the socket path: the runtime is not running or the path is wrong. */
    SOCKET_MISSING,
    /** Something exists at the path but it is not a unix socket. */
    NOT_A_SOCKET,
    /** The socket exists but this process may not connect to it (permissions). */
    PERMISSION_DENIED,
    /** The socket exists but nobody answers on it, or the connection broke. */
    UNAVAILABLE,
    /** The runtime answers but does not implement {@code runtime.v1.RuntimeService}. */
    UNIMPLEMENTED,
    /** No answer within the client's timeout. */
    DEADLINE_EXCEEDED,
    /** The runtime does not know the pod sandbox named in the request. */
    NOT_FOUND,
    /** The runtime answered with any other error. */
    FAILED
  }

  private final Path socket;
  private final Reason reason;

  public CriException(Path socket, Reason reason, String message, Throwable cause) {
    super("CRI runtime at unix://" + socket + ": " + message, cause);
    this.socket = socket;
    this.reason = reason;
  }

  public CriException(Path socket, Reason reason, String message) {
    this(socket, reason, message, null);
  }

  /** The runtime socket the failed call went to. */
  public Path socket() {
    return socket;
  }

  public Reason reason() {
    return reason;
  }
}
