package dev.cnioperator.operator.devices;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.List;

/**
 * What the operator keeps for a network published to the scheduler (spec.scheduling.publishDevices)
 * beside what the agents publish: its DeviceClass, and for a Multus network a ResourceClaimTemplate
 * beside each of its NetworkAttachmentDefinitions.
 */
public final class NetworkPublication {
  private final NetworkDeviceClasses classes;
  private final NetworkClaimTemplates templates;

  public NetworkPublication(KubernetesClient client, Clock clock) {
    this.classes = new NetworkDeviceClasses(client, clock);
    this.templates = new NetworkClaimTemplates(client, clock);
  }

  /**
   * @param name the network's accepted CNI name, null when none was accepted
   * @param definitionNamespaces where the network's own NetworkAttachmentDefinition is now
   */
  public void reconcile(CniNetwork network, String name, List<String> definitionNamespaces) {
    classes.reconcile(network);
    templates.reconcile(network, name, definitionNamespaces);
  }

  public void networkDeleted(CniNetwork network) {
    templates.networkDeleted(network);
    classes.networkDeleted(network);
  }
}
