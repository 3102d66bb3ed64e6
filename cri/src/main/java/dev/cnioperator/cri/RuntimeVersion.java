package dev.cnioperator.cri;

/**
 * What the CRI {@code Version} call reports: the CRI API version the runtime serves (for example
 * {@code v1}), and the runtime's own name and version (for example {@code containerd 1.6.20}).
 */
public record RuntimeVersion(
    String version, String runtimeName, String runtimeVersion, String runtimeApiVersion) {}
