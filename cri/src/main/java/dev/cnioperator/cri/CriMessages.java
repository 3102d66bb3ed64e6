package dev.cnioperator.cri;

import dev.cnioperator.cri.v1.PodIP;
import dev.cnioperator.cri.v1.PodSandboxMetadata;
import dev.cnioperator.cri.v1.StatusResponse;
import dev.cnioperator.cri.v1.VersionResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Translates between the CRI v1 wire messages and this package's records. */
final class CriMessages {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private CriMessages() {}

  static RuntimeVersion version(VersionResponse r) {
    return new RuntimeVersion(
        r.getVersion(), r.getRuntimeName(), r.getRuntimeVersion(), r.getRuntimeApiVersion());
  }

  static RuntimeStatus status(StatusResponse r) {
    return new RuntimeStatus(
        r.getStatus().getConditionsList().stream()
            .map(
                c ->
                    new RuntimeCondition(c.getType(), c.getStatus(), c.getReason(), c.getMessage()))
            .toList(),
        r.getInfoMap());
  }

  static PodSandbox sandbox(dev.cnioperator.cri.v1.PodSandbox s) {
    return sandbox(
        s.getId(),
        s.getMetadata(),
        s.getState(),
        s.getCreatedAt(),
        s.getLabelsMap(),
        s.getAnnotationsMap());
  }

  static PodSandboxStatus sandboxStatus(dev.cnioperator.cri.v1.PodSandboxStatus s) {
    PodSandbox sandbox =
        sandbox(
            s.getId(),
            s.getMetadata(),
            s.getState(),
            s.getCreatedAt(),
            s.getLabelsMap(),
            s.getAnnotationsMap());
    List<String> ips = new ArrayList<>();
    if (!s.getNetwork().getIp().isEmpty()) {
      ips.add(s.getNetwork().getIp());
    }
    s.getNetwork().getAdditionalIpsList().stream()
        .map(PodIP::getIp)
        .filter(ip -> !ip.isEmpty())
        .forEach(ips::add);
    return new PodSandboxStatus(sandbox, ips);
  }

  private static PodSandbox sandbox(
      String id,
      PodSandboxMetadata m,
      dev.cnioperator.cri.v1.PodSandboxState state,
      long createdAtNanos,
      java.util.Map<String, String> labels,
      java.util.Map<String, String> annotations) {
    return new PodSandbox(
        id,
        m.getName(),
        m.getNamespace(),
        m.getUid(),
        m.getAttempt(),
        state(state),
        Instant.ofEpochSecond(
            Math.floorDiv(createdAtNanos, NANOS_PER_SECOND),
            Math.floorMod(createdAtNanos, NANOS_PER_SECOND)),
        labels,
        annotations);
  }

  /** Anything but SANDBOX_READY, including a state value newer than this file, is not ready. */
  private static PodSandbox.State state(dev.cnioperator.cri.v1.PodSandboxState state) {
    return state == dev.cnioperator.cri.v1.PodSandboxState.SANDBOX_READY
        ? PodSandbox.State.READY
        : PodSandbox.State.NOTREADY;
  }
}
