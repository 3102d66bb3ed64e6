package dev.cnioperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CniNodeLookupTest {

  @Test
  void aSpecFindsTheEntryOfANetworkByName() {
    NodeNetwork b = new NodeNetwork().setName("b").setRevision("2");
    CniNodeSpec spec = new CniNodeSpec().setNetworks(List.of(new NodeNetwork().setName("a"), b));

    assertThat(spec.network("b")).containsSame(b);
    assertThat(spec.network("c")).isEmpty();
    assertThat(new CniNodeSpec().network("a")).isEmpty();
  }

  @Test
  void aStatusFindsTheReportOnANetworkByName() {
    NodeNetworkStatus a = new NodeNetworkStatus().setName("a");
    CniNodeStatus status = new CniNodeStatus().setNetworks(List.of(a));

    assertThat(status.network("a")).containsSame(a);
    assertThat(status.network("b")).isEmpty();
    assertThat(new CniNodeStatus().network("a")).isEmpty();
  }
}
