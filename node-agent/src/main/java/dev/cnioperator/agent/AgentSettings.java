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
 */
public record AgentSettings(
    String nodeName,
    Path kubeconfig,
    HostPaths paths,
    Path criSocket,
    InetSocketAddress listen,
    Duration resync,
    Duration pluginTimeout) {}
