package dev.cnioperator.operator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Builds the fabric8 client the operator runs with. Its JSON reader accepts objects as deeply
 * nested as the API server stores them (Jackson stops at 1000 levels by default): one CniNetwork
 * nested deeper would otherwise fail every list and watch of CniNetworks, stop the informer and
 * with it the operator, and do so again after every restart. Read, it is refused by the renderer
 * like any other invalid configuration.
 */
public final class OperatorClients {

  /** The API server's own JSON decoding limit (sigs.k8s.io/json). */
  static final int API_SERVER_MAX_DEPTH = 10_000;

  private OperatorClients() {}

  public static KubernetesClient create(Config config) {
    JsonFactory json =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder().maxNestingDepth(API_SERVER_MAX_DEPTH).build())
            .streamWriteConstraints(
                StreamWriteConstraints.builder().maxNestingDepth(API_SERVER_MAX_DEPTH).build())
            .build();
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withKubernetesSerialization(new KubernetesSerialization(new ObjectMapper(json), true))
        .build();
  }
}
