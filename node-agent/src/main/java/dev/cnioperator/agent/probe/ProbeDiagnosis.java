package dev.cnioperator.agent.probe;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.PluginConfig;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says what to do about a failed probe where the cause is known and can be seen on the node: a
 * bridge left by an earlier pod network that carries another address (what {@code kubeadm reset}
 * and a re-join with a new pod CIDR leave behind), or a host interface a plugin needs that the node
 * does not have (a macvlan or ipvlan {@code master}, a host-device {@code device}).
 */
public final class ProbeDiagnosis {

  /** The bridge plugin's words when the bridge already carries another gateway address. */
  private static final Pattern BRIDGE_ADDRESS =
      Pattern.compile("\"([^\"]+)\" already has an IP address different from (\\S+)");

  /** Plugin fields that name a host interface the plugin attaches to. */
  private static final List<String> HOST_INTERFACE_FIELDS = List.of("master", "device");

  private final Function<String, Optional<List<String>>> interfaceAddresses;

  /** Reads the node's interfaces from the agent's network namespace, the host's. */
  public ProbeDiagnosis() {
    this(ProbeDiagnosis::hostAddresses);
  }

  /**
   * @param interfaceAddresses an interface's addresses in CIDR form by name (link-local ones left
   *     out), empty when the node has no interface of that name
   */
  public ProbeDiagnosis(Function<String, Optional<List<String>>> interfaceAddresses) {
    this.interfaceAddresses = interfaceAddresses;
  }

  /** What to do about {@code error} on this node, when the cause is known. */
  public Optional<String> advise(NetworkConfigList list, String error) {
    Matcher bridge = BRIDGE_ADDRESS.matcher(error);
    if (bridge.find()) {
      String name = bridge.group(1);
      String wanted = bridge.group(2);
      String holds =
          interfaceAddresses
              .apply(name)
              .filter(a -> !a.isEmpty())
              .map(a -> String.join(", ", a))
              .orElse("another address");
      return Optional.of(
          "bridge "
              + name
              + " on this node holds "
              + holds
              + ", not the network's gateway "
              + wanted
              + ": a leftover of an earlier pod network (kubeadm reset, a new pod CIDR)? Delete it"
              + " (ip link delete "
              + name
              + ") and the agent proves the network again by itself");
    }
    for (PluginConfig plugin : list.plugins()) {
      Optional<String> missing = missingHostInterface(plugin);
      if (missing.isPresent()) {
        return missing;
      }
    }
    return Optional.empty();
  }

  private Optional<String> missingHostInterface(PluginConfig plugin) {
    ObjectNode raw = plugin.raw();
    for (String field : HOST_INTERFACE_FIELDS) {
      String name = raw.path(field).asText("");
      if (!name.isEmpty() && interfaceAddresses.apply(name).isEmpty()) {
        return Optional.of(
            "interface "
                + name
                + " (the "
                + plugin.type()
                + " plugin's \""
                + field
                + "\") does not exist on this node: give the node that interface, or keep the"
                + " network off nodes without it (spec.nodeSelector); the agent proves the network"
                + " again by itself");
      }
    }
    return Optional.empty();
  }

  private static Optional<List<String>> hostAddresses(String name) {
    try {
      NetworkInterface nic = NetworkInterface.getByName(name);
      if (nic == null) {
        return Optional.empty();
      }
      return Optional.of(
          nic.getInterfaceAddresses().stream()
              .filter(a -> !a.getAddress().isLinkLocalAddress())
              .map(ProbeDiagnosis::cidr)
              .sorted()
              .toList());
    } catch (SocketException e) {
      // Not known: no advice rather than a wrong one.
      return Optional.of(List.of());
    }
  }

  private static String cidr(InterfaceAddress a) {
    String host = a.getAddress().getHostAddress();
    int zone = host.indexOf('%');
    return (zone < 0 ? host : host.substring(0, zone)) + "/" + a.getNetworkPrefixLength();
  }
}
