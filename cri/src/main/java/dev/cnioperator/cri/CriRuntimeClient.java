package dev.cnioperator.cri;

import dev.cnioperator.cri.CriException.Reason;
import dev.cnioperator.cri.v1.ListPodSandboxRequest;
import dev.cnioperator.cri.v1.PodSandboxStatusRequest;
import dev.cnioperator.cri.v1.RuntimeServiceGrpc;
import dev.cnioperator.cri.v1.RuntimeServiceGrpc.RuntimeServiceBlockingStub;
import dev.cnioperator.cri.v1.StatusRequest;
import dev.cnioperator.cri.v1.VersionRequest;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client of a container runtime's CRI {@code RuntimeService} over its unix socket (for example
 * {@code /run/containerd/containerd.sock}).
 *
 * <p>It speaks CRI {@code v1} only ({@code runtime.v1}, served by containerd 1.5 and later, CRI-O
 * 1.20 and later). The older {@code v1alpha2} is deliberately not a fallback: containerd 2.0 and
 * kubelet 1.26 dropped it, and a runtime that serves only v1alpha2 is too old for the clusters this
 * operator supports; such a runtime gets a {@link CriException} with reason {@link
 * Reason#UNIMPLEMENTED}.
 *
 * <p>Keep one client per runtime: the connection is made on first use and made again by itself when
 * the runtime restarts. Every call is bounded by the timeout given to {@link #connect} and either
 * answers or throws {@link CriException}; nothing is cached, so every call is a fresh read.
 */
public final class CriRuntimeClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CriRuntimeClient.class);

  /** The CRI API version this client asks for in {@code Version}. */
  public static final String CRI_API_VERSION = "v1";

  /** As the kubelet allows: a node with many sandboxes makes a large ListPodSandbox response. */
  private static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  /** How often a reconnect after a failure looks at the channel again. */
  private static final Duration STATE_POLL = Duration.ofMillis(50);

  private final RuntimeSocket socket;
  private final Duration timeout;
  private final EventLoopGroup eventLoop;
  private final ManagedChannel channel;

  private CriRuntimeClient(RuntimeSocket socket, Duration timeout) {
    this.socket = socket;
    this.timeout = timeout;
    // One daemon thread does all the I/O: the agent makes a few calls a minute.
    this.eventLoop = new EpollEventLoopGroup(1, new DefaultThreadFactory("cri-client", true));
    this.channel =
        NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.path().toString()))
            .channelType(EpollDomainSocketChannel.class)
            .eventLoopGroup(eventLoop)
            .usePlaintext()
            // A unix socket path is no valid HTTP/2 authority; the runtime ignores it anyway.
            .overrideAuthority("localhost")
            .directExecutor()
            // gRPC asks every transport for TCP keepalive; a unix socket has none, and netty would
            // log a warning at each connect.
            .withOption(ChannelOption.SO_KEEPALIVE, null)
            // A few small messages a minute: heap buffers, not a pool of direct-memory chunks
            // (a pooled arena commits megabytes the agent's memory budget cannot spare).
            .withOption(ChannelOption.ALLOCATOR, new UnpooledByteBufAllocator(false))
            .maxInboundMessageSize(MAX_MESSAGE_BYTES)
            .build();
  }

  /**
   * A client of the runtime listening on {@code socket}; every call waits at most {@code timeout}.
   * Fails when nothing usable is at that path (missing, not a socket, no permission); whether the
   * runtime answers is known at the first call.
   */
  public static CriRuntimeClient connect(Path socket, Duration timeout) throws CriException {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("CRI timeout must be positive, got " + timeout);
    }
    RuntimeSocket runtimeSocket = new RuntimeSocket(socket);
    runtimeSocket.check();
    if (!Epoll.isAvailable()) {
      throw new CriException(
          runtimeSocket.path(),
          Reason.UNAVAILABLE,
          "netty's native epoll transport is not available here (Linux x86_64 only): "
              + Epoll.unavailabilityCause(),
          Epoll.unavailabilityCause());
    }
    log.debug("cri connect socket={} timeout={}", runtimeSocket.path(), timeout);
    return new CriRuntimeClient(runtimeSocket, timeout);
  }

  public Path socket() {
    return socket.path();
  }

  /** CRI {@code Version}: which runtime this is and which CRI version it serves. */
  public RuntimeVersion version() throws CriException {
    return call(
        "Version",
        () ->
            CriMessages.version(
                stub().version(VersionRequest.newBuilder().setVersion(CRI_API_VERSION).build())));
  }

  /**
   * CRI {@code Status}, verbose: the runtime's conditions, among them {@code NetworkReady}, and its
   * free-form info (for containerd, the CNI configuration it has loaded).
   */
  public RuntimeStatus status() throws CriException {
    return call(
        "Status",
        () ->
            CriMessages.status(stub().status(StatusRequest.newBuilder().setVerbose(true).build())));
  }

  /** CRI {@code ListPodSandbox} without a filter: every sandbox the runtime knows, in any state. */
  public List<PodSandbox> listPodSandboxes() throws CriException {
    return call(
        "ListPodSandbox",
        () ->
            stub()
                .listPodSandbox(ListPodSandboxRequest.getDefaultInstance())
                .getItemsList()
                .stream()
                .map(CriMessages::sandbox)
                .toList());
  }

  /** CRI {@code PodSandboxStatus}; a sandbox the runtime does not know is {@code NOT_FOUND}. */
  public PodSandboxStatus podSandboxStatus(String podSandboxId) throws CriException {
    return call(
        "PodSandboxStatus",
        () ->
            CriMessages.sandboxStatus(
                stub()
                    .podSandboxStatus(
                        PodSandboxStatusRequest.newBuilder().setPodSandboxId(podSandboxId).build())
                    .getStatus()));
  }

  /**
   * The runtime's verbose {@code PodSandboxStatus} info: free-form key to JSON text, whose shape is
   * the runtime's own (containerd and CRI-O put the sandbox's OCI spec under {@code info}).
   */
  public Map<String, String> podSandboxInfo(String podSandboxId) throws CriException {
    return call(
        "PodSandboxStatus",
        () ->
            Map.copyOf(
                stub()
                    .podSandboxStatus(
                        PodSandboxStatusRequest.newBuilder()
                            .setPodSandboxId(podSandboxId)
                            .setVerbose(true)
                            .build())
                    .getInfoMap()));
  }

  /**
   * Runs one RPC this class does not offer, with this client's deadline, reconnection and errors:
   * for the tests' sandbox lifecycle ({@code CriSandboxes}), which the agent never needs.
   */
  <T> T call(String rpc, Function<RuntimeServiceBlockingStub, T> body) throws CriException {
    return call(rpc, () -> body.apply(stub()));
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private RuntimeServiceBlockingStub stub() {
    return RuntimeServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Runs one call on a channel that has just tried to connect, if its last try failed. */
  private <T> T call(String rpc, GrpcCall<T> body) throws CriException {
    freshConnectAttempt(rpc);
    try {
      return body.run();
    } catch (StatusRuntimeException e) {
      CriException failure = socket.failure(rpc, e);
      log.debug("cri call failed rpc={} socket={} reason={}", rpc, socket.path(), failure.reason());
      throw failure;
    }
  }

  /**
   * A channel whose connection failed waits out gRPC's exponential back-off (up to two minutes)
   * before it tries again, and fails every call meanwhile with the old error; its state stays
   * TRANSIENT_FAILURE until a connection succeeds. The agent must see a runtime that came back at
   * once, and a runtime that is gone as gone now: so the socket is probed with a plain connect, a
   * refusal is reported as it is, and an answer resets the back-off and waits (bounded by the call
   * timeout) for the channel to be ready.
   */
  private void freshConnectAttempt(String rpc) throws CriException {
    if (channel.getState(false) != ConnectivityState.TRANSIENT_FAILURE) {
      return;
    }
    socket.probe(rpc);
    long deadline = System.nanoTime() + timeout.toNanos();
    ConnectivityState state;
    while ((state = channel.getState(true)) != ConnectivityState.READY
        && System.nanoTime() < deadline) {
      if (state == ConnectivityState.TRANSIENT_FAILURE) {
        // Also a try that failed just before the runtime was listening again: try once more now.
        channel.resetConnectBackoff();
      }
      CountDownLatch changed = new CountDownLatch(1);
      channel.notifyWhenStateChanged(state, changed::countDown);
      try {
        changed.await(STATE_POLL.toNanos(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @FunctionalInterface
  private interface GrpcCall<T> {
    T run();
  }
}
