package dev.cnioperator.operator.devices;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.operator.events.ClusterEvents;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.List;

/**
 * What the operator keeps for a network published to the scheduler (spec.scheduling.publishDevices)
 * beside what the agents publish: its DeviceClass, for a Multus network a ResourceClaimTemplate
 * beside each of its NetworkAttachmentDefinitions, and the Events that tell a pod the scheduler
 * cannot place why, in the network's words.
 */
public final class NetworkPublication {
  private final NetworkDeviceClasses classes;
  private final NetworkClaimTemplates templates;
  private final NetworkPodEvents podEvents;

  public NetworkPublication(KubernetesClient client, Clock clock, ClusterEvents events) {
    this.classes = new NetworkDeviceClasses(client, clock);
    this.templates = new NetworkClaimTemplates(client, clock);
    this.podEvents = new NetworkPodEvents(client, events);
  }

  /**
   * @param name the network's accepted CNI name, null when none was accepted
   * @param definitionNamespaces where the network's own NetworkAttachmentDefinition is now
   */
  public void reconcile(CniNetwork network, String name, List<String> definitionNamespaces) {
    classes.reconcile(network);
    templates.reconcile(network, name, definitionNamespaces);
    if (network.getSpec().publishesDevices()) {
      podEvents.start();
    }
  }

  public void networkDeleted(CniNetwork network) {
    templates.networkDeleted(network);
    classes.networkDeleted(network);
  }
}
