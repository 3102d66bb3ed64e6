package dev.cnioperator.agent.node;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cnioperator.agent.cleanup.SourceOfTruth;
import dev.cnioperator.agent.kube.PodSource;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.runtime.client.CallDeadline;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's reads and writes end when the API server stops answering half way through a response:
 * the headers come in time (so fabric8's request timeout is satisfied) and the body never ends. A
 * real fabric8 client with the JDK HTTP client, as the agent runs it, against a socket that does
 * exactly that.
 *
 * <p>Each test runs a product code path that goes through {@link CallDeadline}. Why the deadline is
 * the caller's is not tested here, being fabric8's and the JDK's behaviour, not the product's: the
 * JDK HTTP client's request timeout ends once the response headers are in (JDK-8208693), and
 * fabric8's blocking calls wait on that response without a bound of their own
 * (fabric8io/kubernetes-client#4663, #6909, #8105, cited in {@link CallDeadline}).
 */
class ApiCallDeadlineTest {
  private static final CallDeadline ONE_SECOND = new CallDeadline(Duration.ofSeconds(1));
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(1);

  private StallingServer server;
  private KubernetesClient client;

  @BeforeEach
  void start() throws IOException {
    server = new StallingServer();
    Config config =
        new ConfigBuilder()
            .withMasterUrl("http://127.0.0.1:" + server.port())
            .withRequestTimeout((int) REQUEST_TIMEOUT.toMillis())
            .withRequestRetryBackoffLimit(1)
            .withRequestRetryBackoffInterval(250)
            .build();
    client = new KubernetesClientBuilder().withConfig(config).build();
  }

  @AfterEach
  void stop() throws IOException {
    client.close();
    server.close();
  }

  @Test
  void aReadWhoseBodyNeverEndsFailsAtTheDeadline() {
    OwnCniNode api = new OwnCniNode(client, "n1", ONE_SECOND);
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () ->
            assertThatThrownBy(api::fetch)
                .isInstanceOf(KubernetesClientException.class)
                .hasMessage("read CniNode n1: no answer from the API server within 1s"));
  }

  @Test
  void aStatusWriteWhoseBodyNeverEndsFailsAtTheDeadline() {
    OwnCniNode api = new OwnCniNode(client, "n1", ONE_SECOND);
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () ->
            assertThatThrownBy(
                    () -> api.publishStatus(null, new CniNodeStatus().setObservedGeneration(2L)))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessage(
                    "write the status of CniNode n1: no answer from the API server within 1s"));
  }

  @Test
  void aPodListWhoseBodyNeverEndsMakesTheSourceUnavailable() {
    PodSource pods = new PodSource(client, "n1", ONE_SECOND);
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () ->
            assertThatThrownBy(pods::read)
                .isInstanceOf(SourceOfTruth.Unavailable.class)
                .hasRootCauseInstanceOf(TimeoutException.class));
  }

  /** Answers every request with the headers of a 4 KiB JSON body and one byte of it, then waits. */
  private static final class StallingServer implements AutoCloseable {
    private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> held = new CopyOnWriteArrayList<>();

    StallingServer() throws IOException {
      Thread accept = new Thread(this::serve, "stalling-api-server");
      accept.setDaemon(true);
      accept.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    private void serve() {
      while (!socket.isClosed()) {
        try {
          Socket s = socket.accept();
          held.add(s);
          readHeaders(s.getInputStream());
          OutputStream out = s.getOutputStream();
          out.write(
              ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{")
                  .getBytes(StandardCharsets.US_ASCII));
          out.flush();
        } catch (IOException e) {
          // closed
        }
      }
    }

    private static void readHeaders(InputStream in) throws IOException {
      int matched = 0;
      byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
      while (matched < end.length) {
        int b = in.read();
        if (b < 0) {
          throw new IOException("closed before the request's headers ended");
        }
        matched = b == end[matched] ? matched + 1 : (b == end[0] ? 1 : 0);
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
      for (Socket s : held) {
        s.close();
      }
    }
  }
}
