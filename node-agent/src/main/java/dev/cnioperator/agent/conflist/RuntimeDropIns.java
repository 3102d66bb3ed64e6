package dev.cnioperator.agent.conflist;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether the node's runtime loads libcni's drop-in directory, {@code <conf dir>/<network
 * name>/*.conf}, with a network's list, and deletes pods with it too: judged from the name and
 * version the runtime gives over the CRI. Drop-ins came with libcni 1.3.0, which containerd carries
 * from 2.1.0 on; go-cni deletes a pod with the list as last loaded, drop-ins included. CRI-O loads
 * them from 1.33.0 on, but deletes and CHECKs a pod with libcni's cached copy of the network's
 * file, which holds no drop-ins, so a drop-in plugin would never get its DEL there: CRI-O keeps the
 * entries in place.
 *
 * @param kind whether it loads them, or cannot be told yet
 * @param why in words, when it does not or cannot be told; empty when it does
 */
public record RuntimeDropIns(Kind kind, String why) {
  private static final Pattern VERSION = Pattern.compile("^v?(\\d+)\\.(\\d+)");

  /** What is known of the runtime. */
  public enum Kind {
    /** It loads drop-ins and deletes with them. */
    LOADS,
    /** It does not, or not in a way pods can rely on: the entries are held in place. */
    NOT_LOADED,
    /** Its version is not known (no CRI socket, or it does not answer): nothing is moved. */
    UNKNOWN
  }

  public static final RuntimeDropIns LOADS = new RuntimeDropIns(Kind.LOADS, "");

  public static RuntimeDropIns unknown(String why) {
    return new RuntimeDropIns(Kind.UNKNOWN, why);
  }

  /** Judged from the CRI's {@code runtime_name} and {@code runtime_version}. */
  public static RuntimeDropIns of(String runtimeName, String runtimeVersion) {
    String version = runtimeVersion == null ? "" : runtimeVersion;
    Matcher m = VERSION.matcher(version);
    String runtime = runtimeName + " " + version;
    if ("containerd".equals(runtimeName) && m.find()) {
      int major = Integer.parseInt(m.group(1));
      int minor = Integer.parseInt(m.group(2));
      return major > 2 || (major == 2 && minor >= 1)
          ? LOADS
          : new RuntimeDropIns(
              Kind.NOT_LOADED,
              "the node's runtime, "
                  + runtime
                  + ", carries a libcni older than 1.3, which loads no drop-ins (containerd 2.1"
                  + " and later do)");
    }
    if ("cri-o".equals(runtimeName)) {
      return new RuntimeDropIns(
          Kind.NOT_LOADED,
          "the node's runtime, "
              + runtime
              + ", deletes pods with libcni's cached copy of the network's file, which holds no"
              + " drop-ins: a drop-in plugin would never get its DEL");
    }
    return new RuntimeDropIns(
        Kind.NOT_LOADED,
        "the node's runtime, " + runtime + ", is not one known to load libcni's drop-ins");
  }
}
