package dev.cnioperator.agent.kube;

import dev.cnioperator.agent.conflist.RuntimeDropIns;
import dev.cnioperator.cni.CniVersion;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cri.CriException;
import dev.cnioperator.cri.RuntimeVersion;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the node's runtime can ADD a network at all: the probe runs the agent's own CNI runtime,
 * which speaks every version, while the runtime runs libcni. containerd before 2.0 carries libcni
 * 1.1, which knows no 1.1.0 result: it loads a network whose cniVersion is 1.1.0 as ready and fails
 * every ADD ("unsupported CNI result version"), so no pod starts on such a node however well the
 * probe went. It ignores {@code cniVersions}, reading {@code cniVersion} alone: a network with
 * cniVersion 1.0.0 and cniVersions [1.0.0, 1.1.0] runs there at 1.0.0.
 */
public final class RuntimeCniSupport {
  private static final Logger LOG = LoggerFactory.getLogger(RuntimeCniSupport.class);
  private static final Pattern MAJOR = Pattern.compile("^v?(\\d+)\\.");

  private final CriConnection cri;
  private final Path confDir;
  private volatile RuntimeVersion version;

  /**
   * @param confDir the directory the agent writes the runtime's networks to
   */
  public RuntimeCniSupport(CriConnection cri, Path confDir) {
    this.cri = cri;
    this.confDir = confDir;
  }

  /**
   * Why the runtime cannot ADD {@code list}, a network of its directory, when it is known that it
   * cannot: it loads another directory, or it cannot speak the list's version. Asked at each probe,
   * not taken from the runtime watch, whose first answer may come after the first probe.
   */
  public Optional<String> refuses(NetworkConfigList list) {
    Optional<String> elsewhere = loadsElsewhere();
    if (elsewhere.isPresent() || list.cniVersion().compareTo(CniVersion.V1_1_0) < 0) {
      return elsewhere;
    }
    return runtime().flatMap(v -> refuses(v, list));
  }

  private Optional<String> loadsElsewhere() {
    try {
      return LoadedCniConfig.from(cri.client().status().info())
          .flatMap(
              loaded ->
                  RuntimeConfDir.mismatch(cri.socket().toString(), loaded.confDir(), confDir));
    } catch (CriException e) {
      LOG.debug("event=runtime-status-unknown error=\"{}\"", e.getMessage());
      return Optional.empty();
    }
  }

  static Optional<String> refuses(RuntimeVersion v, NetworkConfigList list) {
    Matcher major = MAJOR.matcher(v.runtimeVersion() == null ? "" : v.runtimeVersion());
    boolean oldContainerd =
        "containerd".equals(v.runtimeName())
            && major.find()
            && Integer.parseInt(major.group(1)) < 2;
    if (!oldContainerd || list.cniVersion().compareTo(CniVersion.V1_1_0) < 0) {
      return Optional.empty();
    }
    return Optional.of(
        "the node's runtime, containerd "
            + v.runtimeVersion()
            + " (libcni 1.1), cannot ADD a network whose cniVersion is "
            + list.cniVersion()
            + " (every pod fails with \"unsupported CNI result version\"; it reads cniVersion"
            + " alone): set cniVersion 1.0.0, with cniVersions [1.0.0, 1.1.0] for nodes whose"
            + " runtime selects 1.1.0, or upgrade containerd to 2.x");
  }

  /** Whether the runtime loads libcni's drop-ins, from its name and version. */
  public RuntimeDropIns dropIns() {
    return runtime()
        .map(v -> RuntimeDropIns.of(v.runtimeName(), v.runtimeVersion()))
        .orElse(RuntimeDropIns.unknown("the runtime has not answered the CRI's Version yet"));
  }

  /** The runtime's name and version, asked once; empty while it does not answer. */
  private Optional<RuntimeVersion> runtime() {
    RuntimeVersion known = version;
    if (known != null) {
      return Optional.of(known);
    }
    try {
      version = cri.client().version();
      return Optional.of(version);
    } catch (CriException e) {
      LOG.debug("event=runtime-version-unknown error=\"{}\"", e.getMessage());
      return Optional.empty();
    }
  }
}
