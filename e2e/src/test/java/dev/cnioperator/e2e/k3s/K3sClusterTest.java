package dev.cnioperator.e2e.k3s;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class K3sClusterTest {
  @Test
  void theCniBinDirIsReadFromEitherShapeOfContainerdsConfig() {
    String containerd1 =
        """
        [plugins."io.containerd.grpc.v1.cri".cni]
          bin_dir = "/var/lib/rancher/k3s/data/cni"
          conf_dir = "/var/lib/rancher/k3s/agent/etc/cni/net.d"
        """;
    String containerd2 =
        """
        [plugins.'io.containerd.cri.v1.runtime'.cni]
          bin_dirs = ['/bin', '/opt/cni/bin']
        """;

    assertThat(K3sCluster.cniBinDir(containerd1)).contains("/var/lib/rancher/k3s/data/cni");
    assertThat(K3sCluster.cniBinDir(containerd2)).contains("/bin");
    assertThat(K3sCluster.cniBinDir("[plugins]\n")).isEmpty();
  }
}
