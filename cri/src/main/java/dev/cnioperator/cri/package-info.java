/**
 * A client of the Kubernetes Container Runtime Interface, {@code runtime.v1.RuntimeService}, over
 * the runtime's unix socket, for what a node agent needs to know from the runtime: which pod
 * sandboxes exist and are ready, and whether the runtime considers its pod network ready.
 *
 * <p>CRI versions: {@code v1} only (containerd 1.5+, CRI-O 1.20+; containerd 1.6 serves v1 and
 * v1alpha2, containerd 2.x and kubelet 1.26+ only v1). A runtime without v1 answers {@link
 * dev.cnioperator.cri.CriException.Reason#UNIMPLEMENTED}; there is no v1alpha2 fallback. The
 * messages are a subset of k8s.io/cri-api v0.34.4 declared in {@code runtime_v1_subset.proto} with
 * the upstream field numbers.
 *
 * <p>Use: one {@link dev.cnioperator.cri.CriRuntimeClient} per runtime socket for the life of the
 * process.
 *
 * <pre>{@code
 * try (CriRuntimeClient cri = CriRuntimeClient.connect(Path.of("/run/containerd/containerd.sock"),
 *     Duration.ofSeconds(5))) {
 *   Set<String> live = cri.listPodSandboxes().stream()
 *       .filter(PodSandbox::ready).map(PodSandbox::id).collect(toSet());
 *   RuntimeCondition network = cri.status().networkReady();
 * } catch (CriException e) {
 *   // the runtime could not be read: e.socket(), e.reason(); decide nothing from it
 * }
 * }</pre>
 *
 * A sandbox id is the {@code CNI_CONTAINERID} the runtime gave the plugins (the {@code containerId}
 * of libcni's cache entry). Every call is a fresh read bounded by the timeout; a runtime that is
 * down fails the call at once, and one that came back is read at the next call.
 */
package dev.cnioperator.cri;
