package dev.cnioperator.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * CPU time used by each part of a benchmark cluster, from the kernel's per-process accounting
 * ({@code /proc/<pid>/stat}, user plus system, all threads): the API server, etcd, the operator,
 * and this JVM (the in-process agents, the floor's writer and watchers, the benchmark's own
 * observers). Children that have exited, such as kubectl, are in none of them.
 */
final class CpuByPart {
  static final String API_SERVER = "API server";
  static final String ETCD = "etcd";
  static final String OPERATOR = "operator";

  private final Map<String, Long> pids;

  private CpuByPart(Map<String, Long> pids) {
    this.pids = pids;
  }

  /** The control plane, the operator and this JVM. */
  static CpuByPart of(long operatorPid) {
    Map<String, Long> pids = controlPlanePids();
    pids.put(OPERATOR, operatorPid);
    pids.put("bench JVM (agents, floor)", ProcessHandle.current().pid());
    return new CpuByPart(pids);
  }

  /** The API server and etcd only. */
  static CpuByPart controlPlane() {
    return new CpuByPart(controlPlanePids());
  }

  /** The API server and etcd are children of this JVM (the test kit's LocalControlPlane). */
  private static Map<String, Long> controlPlanePids() {
    Map<String, Long> pids = new LinkedHashMap<>();
    pids.put(API_SERVER, apiServerPid());
    pids.put(ETCD, child("etcd-server"));
    return pids;
  }

  /** The process id of the API server this JVM started. */
  static long apiServerPid() {
    return child("kube-apiserver");
  }

  private static long child(String name) {
    return ProcessHandle.current()
        .descendants()
        .filter(p -> p.info().command().map(c -> Path.of(c).endsWith(name)).orElse(false))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no " + name + " process under this JVM"))
        .pid();
  }

  /** CPU milliseconds used so far, by part. */
  Map<String, Double> now() {
    Map<String, Double> used = new LinkedHashMap<>();
    pids.forEach((part, pid) -> used.put(part, ProcAccounting.cpuMillis(pid)));
    return used;
  }

  /**
   * Adds what each part used since {@code mark} (an earlier {@link #now()}) to {@code into}, and
   * returns the mark for the next window: consecutive windows, as laps of a stopwatch.
   */
  Map<String, Double> lap(Totals into, Map<String, Double> mark) {
    Map<String, Double> now = now();
    into.add(mark, now);
    return now;
  }

  /** Sums of CPU use over measured windows, by part. */
  static final class Totals {
    private final Map<String, Double> sums = new LinkedHashMap<>();
    private int windows;

    /** Adds what each part used between {@code before} and {@code after}. */
    synchronized void add(Map<String, Double> before, Map<String, Double> after) {
      before.forEach((part, b) -> sums.merge(part, after.get(part) - b, Double::sum));
      windows++;
    }

    /** Milliseconds {@code part} used per window, on average. */
    synchronized double perWindow(String part) {
      return sums.getOrDefault(part, 0.0) / windows;
    }

    /** "API server 420 ms, etcd 60 ms, ..." per window, and their sum. */
    synchronized String perWindow() {
      double total = sums.values().stream().mapToDouble(Double::doubleValue).sum() / windows;
      return sums.entrySet().stream()
              .map(
                  e -> String.format(Locale.ROOT, "%s %.0f ms", e.getKey(), e.getValue() / windows))
              .collect(Collectors.joining(", "))
          + String.format(Locale.ROOT, "; in all %.0f ms", total);
    }
  }
}
