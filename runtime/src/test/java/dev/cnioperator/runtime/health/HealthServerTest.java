package dev.cnioperator.runtime.health;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HealthServerTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void readyzAnswers503WithTheReasonUntilReadyAndHealthzFollowsLiveness() throws Exception {
    AtomicReference<Optional<String>> notLive = new AtomicReference<>(Optional.empty());
    AtomicReference<Optional<String>> notReady =
        new AtomicReference<>(Optional.of("first pass not done"));
    try (HealthServer server =
        new HealthServer(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            notLive::get,
            notReady::get,
            () -> "cni_up 1\n")) {
      server.start();
      HttpResponse<String> readyz = get(server, "/readyz");
      assertThat(readyz.statusCode()).isEqualTo(503);
      assertThat(readyz.body()).isEqualTo("not ready: first pass not done\n");
      notReady.set(Optional.empty());
      assertThat(get(server, "/readyz").statusCode()).isEqualTo(200);

      assertThat(get(server, "/healthz").statusCode()).isEqualTo(200);
      notLive.set(Optional.of("the node pass has not run for 5m"));
      HttpResponse<String> healthz = get(server, "/healthz");
      assertThat(healthz.statusCode()).isEqualTo(503);
      assertThat(healthz.body()).isEqualTo("not live: the node pass has not run for 5m\n");

      HttpResponse<String> metrics = get(server, "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).isEqualTo("cni_up 1\n");
      assertThat(metrics.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4");
    }
  }

  @Test
  void aClientThatSendsHalfARequestHoldsNeitherTheProbesNorItsConnection() throws Exception {
    try (HealthServer server =
        new HealthServer(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            Optional::empty,
            Optional::empty,
            () -> "")) {
      server.start();
      try (Socket half = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
        half.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(UTF_8));
        half.getOutputStream().flush();

        // The kubelet's probe is answered meanwhile.
        HttpResponse<String> healthz =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/healthz"))
                    .timeout(Duration.ofSeconds(3))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(healthz.statusCode()).isEqualTo(200);

        // And the half request is cut off by the server's bound, not left open.
        half.setSoTimeout(20_000);
        assertThat(half.getInputStream().read()).isEqualTo(-1);
      }
    }
  }

  private HttpResponse<String> get(HealthServer server, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
