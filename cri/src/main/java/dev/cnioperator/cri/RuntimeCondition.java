package dev.cnioperator.cri;

/**
 * One condition of the runtime as CRI {@code Status} reports it ({@code RuntimeReady}, {@code
 * NetworkReady}); {@code reason} and {@code message} explain a false status.
 */
public record RuntimeCondition(String type, boolean status, String reason, String message) {
  public static final String RUNTIME_READY = "RuntimeReady";
  public static final String NETWORK_READY = "NetworkReady";

  /** Stands in for a condition the runtime did not report: not true, and says so. */
  public static RuntimeCondition notReported(String type) {
    return new RuntimeCondition(
        type, false, "NotReported", "the runtime's Status response has no " + type + " condition");
  }
}
