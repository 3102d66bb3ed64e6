package dev.cnioperator.cri.plugin;

import java.util.List;
import java.util.Objects;

/**
 * What preparing one claim came to: either the devices made ready for it (possibly none) or why it
 * could not be prepared. A failed claim keeps the pod from starting; the kubelet reports the error
 * on the pod and asks again later.
 *
 * @param devices the prepared devices; empty for a failure
 * @param error why the claim was not prepared, or {@code null} when it was
 */
public record PrepareResult(List<PreparedDevice> devices, String error) {
  public PrepareResult {
    devices = List.copyOf(devices == null ? List.of() : devices);
    if (error != null) {
      if (error.isBlank()) {
        // The wire has no other failure marker than a non-empty error: a blank one would read as
        // success.
        throw new IllegalArgumentException("a failed claim needs a non-blank error");
      }
      if (!devices.isEmpty()) {
        throw new IllegalArgumentException(
            "a failed claim has no devices (the kubelet ignores them)");
      }
    }
  }

  /** The claim is ready for its pods, with these devices. */
  public static PrepareResult prepared(List<PreparedDevice> devices) {
    return new PrepareResult(Objects.requireNonNull(devices, "devices"), null);
  }

  /** The claim could not be prepared, for this reason (shown on the pod by the kubelet). */
  public static PrepareResult failed(String error) {
    return new PrepareResult(List.of(), Objects.requireNonNull(error, "error"));
  }

  /** Whether this is a failure. */
  public boolean isFailed() {
    return error != null;
  }
}
