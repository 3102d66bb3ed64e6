package dev.cnioperator.agent.cleanup;

/**
 * Where the agent learns which attachments are live: the container runtime over CRI where its
 * socket is mounted, otherwise the API server. Every read is fresh.
 */
public interface SourceOfTruth {

  /**
   * @throws Unavailable when it cannot be read; then no cleanup runs
   */
  LivePods read();

  /** Short name for logs and status: "api-server" or "cri". */
  String name();

  /** The source of truth could not be read. */
  final class Unavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
