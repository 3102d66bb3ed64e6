package dev.cnioperator.operator.multus;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.cni.io.Sha256;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the operator needs to know of one NetworkAttachmentDefinition (k8s.cni.cncf.io/v1, read as a
 * generic resource so that no typed model, and no CRD, is needed to start): where it is, who owns
 * it, and whether it carries a configuration of its own.
 *
 * @param owners the uids its ownerReferences name
 * @param configured whether spec.config is set: Multus then uses it instead of the node's file
 */
public record AttachmentDefinition(
    String namespace, String name, String resourceVersion, Set<String> owners, boolean configured) {

  public static final String CRD_NAME = "network-attachment-definitions.k8s.cni.cncf.io";

  /** The resource, as the API server serves it once the CRD is installed. */
  public static final ResourceDefinitionContext RESOURCE =
      new ResourceDefinitionContext.Builder()
          .withGroup("k8s.cni.cncf.io")
          .withVersion("v1")
          .withKind("NetworkAttachmentDefinition")
          .withPlural("network-attachment-definitions")
          .withNamespaced(true)
          .build();

  static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  static final String MANAGER = "cni-operator";
  static final String NETWORK_LABEL = "cnioperator.dev/network";

  /** A label value holds at most 63 characters; a CniNetwork name may have up to 253. */
  private static final int MAX_LABEL_VALUE = 63;

  private static final int HASH_LENGTH = 10;

  static AttachmentDefinition of(GenericKubernetesResource resource) {
    Object spec = resource.getAdditionalProperties().get("spec");
    Object config = spec instanceof Map<?, ?> m ? m.get("config") : null;
    return new AttachmentDefinition(
        resource.getMetadata().getNamespace(),
        resource.getMetadata().getName(),
        resource.getMetadata().getResourceVersion(),
        resource.getMetadata().getOwnerReferences() == null
            ? Set.of()
            : resource.getMetadata().getOwnerReferences().stream()
                .map(OwnerReference::getUid)
                .collect(Collectors.toUnmodifiableSet()),
        config instanceof String s && !s.isEmpty());
  }

  /** Whether {@code uid}'s CniNetwork created it (the operator never touches any other). */
  boolean ownedBy(String uid) {
    return owners.contains(uid);
  }

  String id() {
    return namespace + "/" + name;
  }

  /**
   * A config-less definition of {@code name} in {@code namespace}, owned by {@code network}: Multus
   * reads the configuration from the file whose "name" is {@code name} in its configuration
   * directory on the pod's node. The garbage collector removes it with the network, should the
   * operator not.
   */
  static GenericKubernetesResource desired(CniNetwork network, String namespace, String name) {
    GenericKubernetesResource resource = new GenericKubernetesResource();
    resource.setApiVersion(RESOURCE.getGroup() + "/" + RESOURCE.getVersion());
    resource.setKind(RESOURCE.getKind());
    resource.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(name)
            .withLabels(
                Map.of(
                    MANAGED_BY,
                    MANAGER,
                    NETWORK_LABEL,
                    labelValue(network.getMetadata().getName())))
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion(network.getApiVersion())
                    .withKind(network.getKind())
                    .withName(network.getMetadata().getName())
                    .withUid(network.getMetadata().getUid())
                    .withController(true)
                    .build())
            .build());
    // Empty: Multus takes a definition whose spec equals the zero value (no config) to mean "read
    // the file of this name" (network-attachment-definition-client GetCNIConfig).
    resource.setAdditionalProperty("spec", Map.of());
    return resource;
  }

  /**
   * The {@value #NETWORK_LABEL} value of a CniNetwork: its name, or, beyond 63 characters, its
   * first 52 and a hash of the whole, so that every name gets a valid value of its own.
   */
  static String labelValue(String network) {
    if (network.length() <= MAX_LABEL_VALUE) {
      return network;
    }
    String hash = Sha256.hex(network.getBytes(StandardCharsets.UTF_8)).substring(0, HASH_LENGTH);
    String head =
        network.substring(0, MAX_LABEL_VALUE - HASH_LENGTH - 1).replaceAll("[^a-z0-9]+$", "");
    return head + "-" + hash;
  }
}
