package dev.cnioperator.agent;

import dev.cnioperator.agent.host.HostPaths;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything {@code run} is configured with.
 *
 * @param kubeconfig null to use the in-cluster ServiceAccount (or fabric8's usual lookup)
 * @param criSocket the runtime's CRI socket, null to take live pods from the API server
 * @param pluginRoot the node's root file system, each plugin chrooted into it; null to run plugins
 *     in the agent's own root
 * @param kubeletDir the kubelet's root directory (its plugins_registry and plugins), where the
 *     agent serves the kubelet's DRA plugin; null to serve none
 */
public record AgentSettings(
    String nodeName,
    Path kubeconfig,
    HostPaths paths,
    Path criSocket,
    InetSocketAddress listen,
    Duration resync,
    Duration pluginTimeout,
    Path pluginRoot,
    Path kubeletDir) {}
