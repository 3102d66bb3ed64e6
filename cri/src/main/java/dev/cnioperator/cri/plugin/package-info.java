/**
 * The kubelet plugin side of Kubernetes Dynamic Resource Allocation (DRA): {@link
 * dev.cnioperator.cri.plugin.KubeletPluginServer} registers a DRA driver with the kubelet of its
 * node and answers the kubelet's {@code NodePrepareResources} and {@code NodeUnprepareResources}
 * calls (DRA kubelet API v1, kubelet 1.34 and later) through a {@link
 * dev.cnioperator.cri.plugin.DraHandler}, whose API is plain Java: the generated protobuf types
 * stay inside this module. The messages are subsets of k8s.io/kubelet's {@code
 * pkg/apis/dra/v1/api.proto} and {@code pkg/apis/pluginregistration/v1/api.proto} declared in
 * {@code dra_v1_subset.proto} and {@code pluginregistration_v1_subset.proto} with the upstream
 * field numbers.
 *
 * <pre>{@code
 * try (KubeletPluginServer plugin = KubeletPluginServer.start("net.example.com",
 *     KubeletPluginServer.KUBELET_REGISTRY_DIR, KubeletPluginServer.KUBELET_PLUGINS_DIR, handler)) {
 *   // publish the driver's ResourceSlices; serve until the process stops
 * }
 * }</pre>
 */
package dev.cnioperator.cri.plugin;
