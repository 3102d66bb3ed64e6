package dev.cnioperator.agent;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything {@code run} is configured with.
 *
 * @param kubeconfig null to use the in-cluster ServiceAccount (or fabric8's usual lookup)
 */
public record AgentSettings(
    String nodeName,
    Path kubeconfig,
    HostPaths paths,
    InetSocketAddress listen,
    Duration resync,
    Duration pluginTimeout) {}
