package dev.cnioperator.operator.multus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.api.v1alpha1.MultusAttachment;
import dev.cnioperator.api.v1alpha1.NetworkAttachment;
import dev.cnioperator.operator.TestNetworks;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** What needs no API server: networks that are not Multus networks are left alone entirely. */
class AttachmentDefinitionsTest {
  /** No client: any request fails the test with a NullPointerException. */
  private final AttachmentDefinitions definitions =
      new AttachmentDefinitions(null, Clock.systemUTC());

  private static final Supplier<Collection<Namespace>> NOT_READ =
      () -> {
        throw new AssertionError("namespaces read");
      };

  @Test
  void aNetworkThatIsNotAndWasNotAMultusNetworkCostsNoRequestAndGetsNoReport() {
    CniNetwork plain = TestNetworks.network("pod", "{\"type\":\"bridge\"}");
    plain.setStatus(
        new CniNetworkStatus()
            .setConditions(List.of(new ConditionBuilder().withType("Ready").build())));

    assertThat(definitions.reconcile(plain, "pod", NOT_READ)).isEmpty();
    definitions.networkDeleted(plain);
  }

  @Test
  void aMultusNetworkNeverAcceptedHasNoNameToGiveDefinitions() {
    CniNetwork secondary = TestNetworks.network("sec", "{\"type\":\"macvlan\"}");
    secondary
        .getSpec()
        .setAttachment(
            new NetworkAttachment()
                .setMultus(new MultusAttachment().setNamespaces(List.of("shop"))));

    assertThat(definitions.reconcile(secondary, null, NOT_READ))
        .hasValueSatisfying(r -> assertThat(r.reason().wire()).isEqualTo("NotAccepted"));
  }
}
