package dev.cnioperator.testkit.crio;

import dev.cnioperator.testkit.Prerequisites;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * How a CRI-O node's container bundles are fitted to this machine, where it differs from a node in
 * ways CRI-O does not check: a wrapper around runc (CRI-O's {@code runtime_path}) that edits the
 * bundle's {@code config.json}, and an exec's {@code process.json}, with jq, then runs runc with
 * the same arguments. Only what the machine needs is edited; a machine that needs nothing gets
 * runc.
 *
 * <ul>
 *   <li>A privileged container is given every capability CRI-O knows; those outside this machine's
 *       bounding set (it has no CAP_SYS_RESOURCE) are dropped, as runc cannot grant them.
 *   <li>Without CAP_SYS_RESOURCE no process may lower its {@code oom_score_adj} below the runtime's
 *       own (0): a negative {@code oomScoreAdj} (the kubelet asks -997 for node-critical pods, the
 *       agent's) is raised to 0, which containerd's nodes get from {@code restrict_oom_score_adj}.
 *   <li>Where the hugetlb controller is enabled but its cgroup v1 hierarchy is not mounted, CRI-O
 *       (which reads {@code /proc/cgroups}) sets hugepage limits that runc cannot: they are
 *       dropped.
 * </ul>
 */
final class BundleFit {
  /** Linux capabilities by number (linux/capability.h), as an OCI bundle names them. */
  private static final List<String> CAPABILITIES =
      List.of(
          "CAP_CHOWN",
          "CAP_DAC_OVERRIDE",
          "CAP_DAC_READ_SEARCH",
          "CAP_FOWNER",
          "CAP_FSETID",
          "CAP_KILL",
          "CAP_SETGID",
          "CAP_SETUID",
          "CAP_SETPCAP",
          "CAP_LINUX_IMMUTABLE",
          "CAP_NET_BIND_SERVICE",
          "CAP_NET_BROADCAST",
          "CAP_NET_ADMIN",
          "CAP_NET_RAW",
          "CAP_IPC_LOCK",
          "CAP_IPC_OWNER",
          "CAP_SYS_MODULE",
          "CAP_SYS_RAWIO",
          "CAP_SYS_CHROOT",
          "CAP_SYS_PTRACE",
          "CAP_SYS_PACCT",
          "CAP_SYS_ADMIN",
          "CAP_SYS_BOOT",
          "CAP_SYS_NICE",
          "CAP_SYS_RESOURCE",
          "CAP_SYS_TIME",
          "CAP_SYS_TTY_CONFIG",
          "CAP_MKNOD",
          "CAP_LEASE",
          "CAP_AUDIT_WRITE",
          "CAP_AUDIT_CONTROL",
          "CAP_SETFCAP",
          "CAP_MAC_OVERRIDE",
          "CAP_MAC_ADMIN",
          "CAP_SYSLOG",
          "CAP_WAKE_ALARM",
          "CAP_BLOCK_SUSPEND",
          "CAP_AUDIT_READ",
          "CAP_PERFMON",
          "CAP_BPF",
          "CAP_CHECKPOINT_RESTORE");

  /** CAP_SYS_RESOURCE's bit. */
  private static final int CAP_SYS_RESOURCE = 24;

  private static final Path CGROUP = Path.of("/sys/fs/cgroup");

  private BundleFit() {}

  /**
   * The jq filters that fit a bundle to a machine whose bounding and effective capability sets are
   * {@code bounding} and {@code effective} ({@code CapBnd}, {@code CapEff}) and whose hugetlb
   * hierarchy is missing or not ({@code hugetlbMissing}); empty when nothing needs fitting.
   */
  static List<String> filters(long bounding, long effective, boolean hugetlbMissing) {
    List<String> filters = new ArrayList<>();
    List<String> unbounded = new ArrayList<>();
    for (int bit = 0; bit < CAPABILITIES.size(); bit++) {
      if ((bounding & (1L << bit)) == 0) {
        unbounded.add("\"" + CAPABILITIES.get(bit) + "\"");
      }
    }
    // config.json has the process below "process", an exec's process.json is one at the top.
    if (!unbounded.isEmpty()) {
      String drop = "map_values(. - [%s])".formatted(String.join(",", unbounded));
      filters.add(
          "(if .process.capabilities then .process.capabilities |= " + drop + " else . end)");
      filters.add("(if .capabilities then .capabilities |= " + drop + " else . end)");
    }
    if ((effective & (1L << CAP_SYS_RESOURCE)) == 0) {
      filters.add("(if (.process.oomScoreAdj // 0) < 0 then .process.oomScoreAdj = 0 else . end)");
      filters.add("(if (.oomScoreAdj // 0) < 0 then .oomScoreAdj = 0 else . end)");
    }
    if (hugetlbMissing) {
      filters.add("del(.linux.resources.hugepageLimits)");
    }
    return filters;
  }

  /** The filters, joined into one jq program. */
  static String program(List<String> filters) {
    return String.join(" | ", filters);
  }

  /**
   * The OCI runtime CRI-O is given on this machine: {@code runc} itself, or a wrapper written into
   * {@code dir} that fits each bundle first.
   */
  static Path runtime(Path dir, Path runc) throws IOException {
    List<String> filters =
        filters(
            capabilities("CapBnd"),
            capabilities("CapEff"),
            !Files.exists(CGROUP.resolve("cgroup.controllers"))
                && !Files.isDirectory(CGROUP.resolve("hugetlb")));
    if (filters.isEmpty()) {
      return runc;
    }
    Path jq = Prerequisites.requireCommand("jq");
    Path wrapper = dir.resolve("runc");
    Files.writeString(
        wrapper,
        """
        #!/bin/sh
        # Written by the test kit: fits the bundle's config.json (and an exec's process.json) to
        # this machine (testkit BundleFit says why), then runs runc with the same arguments.
        prev=
        for a in "$@"; do
          case "$prev" in
            --bundle|-b) f="$a/config.json" ;;
            --process|-p) f="$a" ;;
            *) f= ;;
          esac
          case "$a" in
            --bundle=*) f="${a#--bundle=}/config.json" ;;
            --process=*) f="${a#--process=}" ;;
          esac
          if [ -n "$f" ] && [ -f "$f" ]; then
            %s '%s' "$f" > "$f.fit" && mv "$f.fit" "$f"
          fi
          prev="$a"
        done
        exec %s "$@"
        """
            .formatted(jq, program(filters), runc));
    Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
    return wrapper;
  }

  /** This process's capability set {@code field} of {@code /proc/self/status} ({@code CapEff}). */
  private static long capabilities(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseUnsignedLong(line.substring(field.length() + 1).strip(), 16);
      }
    }
    throw new IOException("/proc/self/status has no " + field);
  }
}
