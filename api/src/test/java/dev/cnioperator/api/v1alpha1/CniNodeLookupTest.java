package dev.cnioperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CniNodeLookupTest {

  @Test
  void aSpecFindsTheEntryOfANetworkByName() {
    NodeNetwork b = new NodeNetwork().withName("b").withRevision("2");
    CniNodeSpec spec = new CniNodeSpec().withNetworks(List.of(new NodeNetwork().withName("a"), b));

    assertThat(spec.network("b")).containsSame(b);
    assertThat(spec.network("c")).isEmpty();
    assertThat(new CniNodeSpec().network("a")).isEmpty();
  }

  @Test
  void aStatusFindsTheReportOnANetworkByName() {
    NodeNetworkStatus a = new NodeNetworkStatus().withName("a");
    CniNodeStatus status = new CniNodeStatus().withNetworks(List.of(a));

    assertThat(status.network("a")).containsSame(a);
    assertThat(status.network("b")).isEmpty();
    assertThat(new CniNodeStatus().network("a")).isEmpty();
  }
}
