package dev.cnioperator.bench;

import dev.cnioperator.e2e.CniNetworkYaml;

/**
 * The CniNetwork the benchmarks apply: a bridge with host-local addresses (the shape of most pod
 * networks), selecting the nodes of one benchmark group, CHECKed every {@code checkSeconds} when
 * that is positive; IPAM cleanup is off, since the benchmarks' attachments have no pods. One made
 * by {@link #withProductDefaults} leaves both unset, so CHECK and cleanup run as shipped. Every
 * revision has its own subnet in 10.220.0.0/16, so a conflist on disk tells which revision it is.
 * {@code rollout} is the YAML of {@code spec.rollout} ("": the product's defaults, canary first). A
 * network without CHECK gives the bridge no gateway address: its only attachments are the agents'
 * revision probes, and the bridge plugin refuses an ADD on a bridge that holds another revision's
 * gateway address (each revision has its own subnet).
 */
public record BenchNetwork(
    String name,
    String group,
    int revision,
    int checkSeconds,
    String rollout,
    boolean publishDevices) {

  /** The bridge every benchmark network uses (only CHECK benchmarks create it). */
  public static final String BRIDGE = "cbench0";

  /** {@code checkSeconds} of a network that leaves CHECK and cleanup to the product's defaults. */
  private static final int PRODUCT_DEFAULTS = -1;

  /** A network with the product's defaults: CHECK every 60 s and IPAM cleanup on. */
  public static BenchNetwork withProductDefaults(String name, String group) {
    return new BenchNetwork(name, group, 0, PRODUCT_DEFAULTS, "");
  }

  public BenchNetwork(String name, String group, int revision, int checkSeconds, String rollout) {
    this(name, group, revision, checkSeconds, rollout, false);
  }

  /** The same network published to the scheduler ({@code spec.scheduling.publishDevices}). */
  public BenchNetwork withPublishedDevices() {
    return new BenchNetwork(name, group, revision, checkSeconds, rollout, true);
  }

  /** A network without CHECK. */
  public BenchNetwork(String name, String group, int revision) {
    this(name, group, revision, 0);
  }

  /** A network with the product's rollout defaults. */
  public BenchNetwork(String name, String group, int revision, int checkSeconds) {
    this(name, group, revision, checkSeconds, "");
  }

  /** The same network whose edits go out as {@code rollout} says (YAML flow mapping). */
  public BenchNetwork withRollout(String rollout) {
    return new BenchNetwork(name, group, revision, checkSeconds, rollout, publishDevices);
  }

  public String fileName() {
    return "50-" + name + ".conflist";
  }

  /** Text only this revision's conflist contains. */
  public String marker() {
    return "\"10.220." + (revision % 250) + ".0/24\"";
  }

  public BenchNetwork next() {
    return new BenchNetwork(name, group, revision + 1, checkSeconds, rollout, publishDevices);
  }

  public String yaml() {
    CniNetworkYaml network =
        CniNetworkYaml.named(name)
            .priority(50)
            .matchLabel(BenchCluster.GROUP_LABEL, group)
            .plugin(
                "type: bridge\nbridge: \"%s\"\nisGateway: %s\n%s"
                    .formatted(
                        checkSeconds != 0
                            ? BRIDGE
                            : "$(node.labels[" + BenchCluster.BRIDGE_LABEL + "])",
                        checkSeconds != 0,
                        CniNetworkYaml.hostLocal(
                            "[[{subnet: 10.220.%d.0/24}]]".formatted(revision % 250), null)));
    if (checkSeconds != PRODUCT_DEFAULTS) {
      network
          .spec(
              "check: {enabled: %s, intervalSeconds: %d}"
                  .formatted(checkSeconds > 0, checkSeconds > 0 ? checkSeconds : 60))
          .spec("ipamCleanup: {enabled: false}");
    }
    if (!rollout.isEmpty()) {
      network.spec("rollout: " + rollout);
    }
    if (publishDevices) {
      network.spec("scheduling: {publishDevices: true}");
    }
    return network.yaml();
  }
}
