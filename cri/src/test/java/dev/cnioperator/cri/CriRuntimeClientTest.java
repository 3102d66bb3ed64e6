package dev.cnioperator.cri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.cri.CriException.Reason;
import dev.cnioperator.cri.v1.RuntimeServiceGrpc;
import dev.cnioperator.cri.v1.VersionRequest;
import dev.cnioperator.cri.v1.VersionResponse;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the client fails, over a real unix socket: each failure is a {@link CriException} naming the
 * socket, with a reason the agent can act on. The servers here are gRPC servers of this test, not a
 * runtime (ContainerdCriIT has the real one).
 */
class CriRuntimeClientTest {
  @TempDir Path dir;

  private EpollEventLoopGroup serverLoop;
  private Server server;

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.shutdownNow();
    }
    if (serverLoop != null) {
      serverLoop.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  @Test
  void missingSocketIsRefusedAtConnectNamingThePath() {
    Path socket = dir.resolve("containerd.sock");

    assertThatThrownBy(() -> CriRuntimeClient.connect(socket, Duration.ofSeconds(2)))
        .isInstanceOfSatisfying(
            CriException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.SOCKET_MISSING);
              assertThat(e.socket()).isEqualTo(socket);
              assertThat(e.getMessage()).contains("unix://" + socket);
            });
  }

  @Test
  void aRegularFileOrADirectoryIsNotASocket() throws IOException {
    Path file = Files.writeString(dir.resolve("not.sock"), "x");

    assertThatThrownBy(() -> CriRuntimeClient.connect(file, Duration.ofSeconds(2)))
        .isInstanceOfSatisfying(
            CriException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_SOCKET));
    assertThatThrownBy(() -> CriRuntimeClient.connect(dir, Duration.ofSeconds(2)))
        .isInstanceOfSatisfying(
            CriException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.NOT_A_SOCKET);
              assertThat(e.getMessage()).contains("a directory");
            });
  }

  @Test
  void aRuntimeWithoutCriV1IsUnimplemented() throws Exception {
    Path socket = serve(null);

    try (CriRuntimeClient client = CriRuntimeClient.connect(socket, Duration.ofSeconds(5))) {
      assertThatThrownBy(client::version)
          .isInstanceOfSatisfying(
              CriException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.UNIMPLEMENTED);
                assertThat(e.getMessage()).contains("runtime.v1.RuntimeService", socket.toString());
              });
    }
  }

  @Test
  void aRuntimeThatDoesNotAnswerInTimeIsDeadlineExceeded() throws Exception {
    Path socket =
        serve(
            new RuntimeServiceGrpc.RuntimeServiceImplBase() {
              @Override
              public void version(VersionRequest request, StreamObserver<VersionResponse> out) {
                // never answers
              }
            });

    try (CriRuntimeClient client = CriRuntimeClient.connect(socket, Duration.ofMillis(300))) {
      assertThatThrownBy(client::version)
          .isInstanceOfSatisfying(
              CriException.class, e -> assertThat(e.reason()).isEqualTo(Reason.DEADLINE_EXCEEDED));
    }
  }

  @Test
  void aSocketNobodyListensOnIsUnavailableAndARuntimeThatComesBackIsReadAtOnce() throws Exception {
    RuntimeServiceGrpc.RuntimeServiceImplBase runtime =
        new RuntimeServiceGrpc.RuntimeServiceImplBase() {
          @Override
          public void version(VersionRequest request, StreamObserver<VersionResponse> out) {
            out.onNext(VersionResponse.newBuilder().setRuntimeApiVersion("v1").build());
            out.onCompleted();
          }
        };
    Path socket = serve(runtime);
    try (CriRuntimeClient client = CriRuntimeClient.connect(socket, Duration.ofSeconds(5))) {
      assertThat(client.version().runtimeApiVersion()).isEqualTo("v1");

      server.shutdownNow().awaitTermination();
      assertThatThrownBy(client::version)
          .isInstanceOfSatisfying(
              CriException.class,
              e -> assertThat(e.reason()).isIn(Reason.UNAVAILABLE, Reason.SOCKET_MISSING));
      assertThatThrownBy(client::version).isInstanceOf(CriException.class);

      Files.deleteIfExists(socket);
      serve(runtime);
      assertThat(client.version().runtimeApiVersion()).isEqualTo("v1");
    }
  }

  /** A gRPC server on {@code dir/cri.sock} serving {@code service}, or nothing when null. */
  private Path serve(RuntimeServiceGrpc.RuntimeServiceImplBase service) throws IOException {
    Path socket = dir.resolve("cri.sock");
    if (serverLoop == null) {
      serverLoop = new EpollEventLoopGroup(1);
    }
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(serverLoop)
            .workerEventLoopGroup(serverLoop);
    if (service != null) {
      builder.addService(service);
    }
    server = builder.build().start();
    return socket;
  }
}
