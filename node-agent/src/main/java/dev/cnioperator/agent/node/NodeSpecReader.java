package dev.cnioperator.agent.node;

import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.ManagedNetwork.CheckSettings;
import dev.cnioperator.agent.network.ManagedNetwork.CleanupSettings;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.agent.plugin.PluginRequest;
import dev.cnioperator.api.v1alpha1.CniNetworkDefaults;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.NetworkCheck;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodePlugin;
import dev.cnioperator.api.v1alpha1.RolloutProbe;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.config.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a CniNode spec into the agent's view: networks with parsed conflists, requested plugins.
 */
public final class NodeSpecReader {

  /** The spec's networks in spec order. */
  public List<ManagedNetwork> networks(CniNodeSpec spec) {
    List<ManagedNetwork> out = new ArrayList<>();
    if (spec == null || spec.getNetworks() == null) {
      return out;
    }
    for (NodeNetwork n : spec.getNetworks()) {
      out.add(network(n));
    }
    return out;
  }

  /** The spec's plugins by name. */
  public Map<String, PluginRequest> plugins(CniNodeSpec spec) {
    Map<String, PluginRequest> out = new LinkedHashMap<>();
    if (spec == null || spec.getPlugins() == null) {
      return out;
    }
    for (NodePlugin p : spec.getPlugins()) {
      out.put(
          p.getName(), new PluginRequest(p.getName(), p.getSource(), p.getUrl(), p.getSha256()));
    }
    return out;
  }

  private static ManagedNetwork network(NodeNetwork n) {
    String content = n.getContent() == null ? "" : n.getContent();
    DesiredConflist conflist =
        new DesiredConflist(
            n.getName(),
            n.getFileName(),
            n.getSha256(),
            content,
            n.getDirectory(),
            n.getAppendTo(),
            n.getAppendAs());
    NetworkConfigList list = null;
    String invalid = null;
    List<String> types = List.of();
    String version = n.getCniVersion() == null ? null : n.getCniVersion().text();
    if (n.getUnavailable() != null) {
      // The operator could not render it for this node: hold whatever is there, say why.
      return new ManagedNetwork(
          conflist,
          n.getUid(),
          null,
          n.getUnavailable(),
          new NetworkPlugins(n.getName(), version, types),
          check(n.getCheck()),
          cleanup(n.getIpamCleanup()),
          proof(n.getProbe()));
    }
    try {
      list = NetworkConfigList.parse(content.getBytes(StandardCharsets.UTF_8), n.getFileName());
      types = list.pluginBinaries();
      version = list.cniVersion().toString();
    } catch (CniException e) {
      invalid = "content is not a valid conflist: " + e.getMessage();
    }
    return new ManagedNetwork(
        conflist,
        n.getUid(),
        list,
        invalid,
        new NetworkPlugins(n.getName(), version, types),
        check(n.getCheck()),
        // Never a DEL for attachments of a network the product does not own.
        conflist.appended() ? ManagedNetwork.CleanupSettings.OFF : cleanup(n.getIpamCleanup()),
        proof(n.getProbe()));
  }

  private static ManagedNetwork.Proof proof(RolloutProbe probe) {
    if (probe == null) {
      return ManagedNetwork.Proof.NONE;
    }
    return CniNetworkDefaults.probeEnabled(probe)
        ? ManagedNetwork.Proof.ATTACHMENT
        : ManagedNetwork.Proof.CHECKS;
  }

  private static CheckSettings check(NetworkCheck spec) {
    NetworkCheck c = CniNetworkDefaults.check(spec);
    int seconds = c.getIntervalSeconds();
    return new CheckSettings(
        c.getEnabled(),
        Duration.ofSeconds(seconds > 0 ? seconds : CniNetworkDefaults.CHECK_INTERVAL_SECONDS));
  }

  private static CleanupSettings cleanup(IpamCleanup spec) {
    IpamCleanup c = CniNetworkDefaults.ipamCleanup(spec);
    int grace = c.getGracePeriodSeconds();
    return new CleanupSettings(
        c.getEnabled(),
        Duration.ofSeconds(grace >= 0 ? grace : CniNetworkDefaults.CLEANUP_GRACE_PERIOD_SECONDS),
        c.getDryRun(),
        c.getMaxDeleteFraction());
  }
}
