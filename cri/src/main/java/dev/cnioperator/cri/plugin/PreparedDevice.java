package dev.cnioperator.cri.plugin;

import java.util.List;
import java.util.Objects;

/**
 * One allocated device a driver has made ready for a claim, as the kubelet records it: it keeps
 * these per claim in its checkpoint, hands the CDI device ids to the container runtime for the
 * containers that use the claim's requests, and matches pool and device name against device health
 * reports.
 *
 * @param requestNames the claim's requests this device was allocated for; empty means every request
 *     of the claim
 * @param poolName the pool of the device in the driver's ResourceSlices (required)
 * @param deviceName the device's name in that pool (required)
 * @param cdiDeviceIds CDI device ids the runtime must inject for this device; may be empty (a
 *     driver that configures the pod by other means, NRI or CNI, has none)
 * @param shareId the share id of a device allocated with consumable capacity, or {@code null}
 */
public record PreparedDevice(
    List<String> requestNames,
    String poolName,
    String deviceName,
    List<String> cdiDeviceIds,
    String shareId) {
  public PreparedDevice {
    requestNames = List.copyOf(requestNames == null ? List.of() : requestNames);
    cdiDeviceIds = List.copyOf(cdiDeviceIds == null ? List.of() : cdiDeviceIds);
    if (Objects.requireNonNull(poolName, "poolName").isBlank()) {
      throw new IllegalArgumentException("a prepared device needs a pool name");
    }
    if (Objects.requireNonNull(deviceName, "deviceName").isBlank()) {
      throw new IllegalArgumentException("a prepared device needs a device name");
    }
  }

  /** A device without a share id. */
  public PreparedDevice(
      List<String> requestNames, String poolName, String deviceName, List<String> cdiDeviceIds) {
    this(requestNames, poolName, deviceName, cdiDeviceIds, null);
  }
}
