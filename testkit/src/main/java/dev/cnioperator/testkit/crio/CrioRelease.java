package dev.cnioperator.testkit.crio;

import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import java.nio.file.Path;

/**
 * A CRI-O release users run, as a test node's runtime: {@code crio} and {@code pinns} built by
 * {@code e2e/bin/provision} from the Go module proxy, with Debian's {@code conmon} and {@code
 * runc}.
 */
public enum CrioRelease implements RuntimeRelease {
  /**
   * CRI-O 1.34 (libcni 1.3: loads a network's drop-in directory, caches the netns, calls STATUS on
   * 1.1.0 networks); infra containers dropped unless a pod shares its PID namespace.
   */
  V1_34("CRI-O 1.34");

  private final String label;

  CrioRelease(String label) {
    this.label = label;
  }

  /** {@code crio}; fails (CI) or skips (elsewhere) when it or {@code pinns} is not there. */
  Path crio() {
    return ToolPaths.crioDir().resolve("crio");
  }

  /** {@code pinns}, which pins each pod's namespaces under {@code /var/run}. */
  Path pinns() {
    return ToolPaths.crioDir().resolve("pinns");
  }

  /** Debian's {@code conmon}, the monitor of each container. */
  Path conmon() {
    return ToolPaths.conmon();
  }

  /** Debian's {@code runc}. */
  Path runc() {
    return Prerequisites.requireCommand("runc");
  }

  /** CRI-O's default {@code crio.api.listen}, the chart's {@code crio} profile. */
  @Override
  public String criSocket() {
    return "/var/run/crio/crio.sock";
  }

  @Override
  public String chartProfile() {
    return "crio";
  }

  @Override
  public String toString() {
    return label;
  }
}
