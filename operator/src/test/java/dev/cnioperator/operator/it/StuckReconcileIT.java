package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.operator.CniOperator;
import dev.cnioperator.operator.OperatorSettings;
import dev.cnioperator.operator.liveness.LoopLiveness;
import dev.cnioperator.runtime.health.HealthServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A reconcile that really hangs (its status write never leaves the client) makes the operator's
 * {@code /healthz} answer 503 naming it, while {@code /readyz} stays 200; once it returns, the
 * operator is live again.
 */
class StuckReconcileIT {
  private static final Duration BOUND = Duration.ofSeconds(3);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final CountDownLatch release = new CountDownLatch(1);
  private ClusterFixture cluster;
  private KubernetesClient client;
  private CniOperator operator;
  private HealthServer health;

  @BeforeEach
  void setUp() {
    // This test's operator is the only one: two would both reconcile.
    TestOperator.shared().stop();
    cluster = new ClusterFixture();
  }

  @AfterEach
  void tearDown() {
    release.countDown();
    if (health != null) {
      health.close();
    }
    if (operator != null) {
      operator.close();
      client.close();
    }
    TestOperator.shared().start();
    cluster.close();
  }

  @Test
  void aReconcileThatHangsFailsLivenessNamingItUntilItReturns() throws Exception {
    String network = "stuck-" + cluster.pool;
    String statusPath = "/cninetworks/" + network + "/status";
    client =
        new KubernetesClientBuilder()
            .withConfig(cluster.controlPlane.client().getConfiguration())
            .withHttpClientBuilderConsumer(
                b -> b.addOrReplaceInterceptor("hang", hangWhen(statusPath)))
            .build();
    operator =
        new CniOperator(
            client,
            new OperatorSettings(
                "default",
                false,
                "stuck",
                TestOperator.FINALIZER_TIMEOUT,
                OperatorSettings.LeaseTimings.DEFAULT,
                new LoopLiveness.Limits(BOUND, LoopLiveness.Limits.DEFAULT.unhealthySources()),
                null),
            new SimpleMeterRegistry());
    health =
        new HealthServer(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            operator::notLive,
            operator::notReady,
            () -> "");
    health.start();
    operator.start();
    assertThat(get("/healthz").statusCode()).isEqualTo(200);

    cluster.node("stuck");
    cluster.apply(network, cluster.bridgeSpec("ct-stuck0", "10.200.60.0/24")).orThrow("apply");

    await("/healthz fails")
        .atMost(ClusterFixture.WAIT)
        .until(() -> get("/healthz").statusCode() == 503);
    assertThat(get("/healthz").body())
        .startsWith("not live: the reconcile of cninetwork/" + network + " has run for ")
        .contains("longer than any reconcile may take (3 s, --stuck-reconcile-after)");
    assertThat(get("/readyz").statusCode()).as("its informers still serve").isEqualTo(200);

    release.countDown();

    await("/healthz answers 200 again")
        .atMost(ClusterFixture.WAIT)
        .until(() -> get("/healthz").statusCode() == 200);
    cluster.awaitCondition(network, "Accepted", "True");
  }

  /** Holds a request for {@code path} in the calling thread until the test releases it. */
  private Interceptor hangWhen(String path) {
    return new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (request.uri().getPath().endsWith(path)) {
          try {
            // Bounded, so a failing test cannot leave a thread behind for good.
            release.await(2, TimeUnit.MINUTES);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    };
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(
        java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health.port() + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
