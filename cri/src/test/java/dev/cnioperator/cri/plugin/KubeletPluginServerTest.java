package dev.cnioperator.cri.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.cri.dra.v1.Claim;
import dev.cnioperator.cri.dra.v1.DRAPluginGrpc;
import dev.cnioperator.cri.dra.v1.DRAPluginGrpc.DRAPluginBlockingStub;
import dev.cnioperator.cri.dra.v1.Device;
import dev.cnioperator.cri.dra.v1.NodePrepareResourceResponse;
import dev.cnioperator.cri.dra.v1.NodePrepareResourcesRequest;
import dev.cnioperator.cri.dra.v1.NodePrepareResourcesResponse;
import dev.cnioperator.cri.dra.v1.NodeUnprepareResourcesRequest;
import dev.cnioperator.cri.dra.v1.NodeUnprepareResourcesResponse;
import dev.cnioperator.cri.pluginregistration.InfoRequest;
import dev.cnioperator.cri.pluginregistration.PluginInfo;
import dev.cnioperator.cri.pluginregistration.RegistrationGrpc;
import dev.cnioperator.cri.pluginregistration.RegistrationGrpc.RegistrationBlockingStub;
import dev.cnioperator.cri.pluginregistration.RegistrationStatus;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kubelet plugin over real unix sockets, with this test in the kubelet's place: the generated
 * gRPC stubs call the registration socket and the DRA socket the way the kubelet does (same method
 * paths, same messages); the handler is a fake.
 */
class KubeletPluginServerTest {
  private static final String DRIVER = "net.example.com";

  private Path dir;
  private Path registry;
  private Path plugins;
  private final FakeHandler handler = new FakeHandler();
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private EpollEventLoopGroup clientLoop;

  @BeforeEach
  void dirs() throws IOException {
    // Short on purpose: a unix socket path holds at most 107 bytes.
    dir = Files.createTempDirectory(Path.of("/tmp"), "kp");
    registry = Files.createDirectory(dir.resolve("registry"));
    plugins = dir.resolve("plugins"); // made by the server
    clientLoop = new EpollEventLoopGroup(1, new DefaultThreadFactory("kubelet-fake", true));
  }

  @AfterEach
  void cleanUp() throws Exception {
    Collections.reverse(toClose);
    for (AutoCloseable c : toClose) {
      c.close();
    }
    clientLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Test
  void theMethodPathsAreTheKubeletsOnes() {
    assertThat(RegistrationGrpc.getGetInfoMethod().getFullMethodName())
        .isEqualTo("pluginregistration.Registration/GetInfo");
    assertThat(RegistrationGrpc.getNotifyRegistrationStatusMethod().getFullMethodName())
        .isEqualTo("pluginregistration.Registration/NotifyRegistrationStatus");
    assertThat(DRAPluginGrpc.getNodePrepareResourcesMethod().getFullMethodName())
        .isEqualTo("k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources");
    assertThat(DRAPluginGrpc.getNodeUnprepareResourcesMethod().getFullMethodName())
        .isEqualTo("k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources");
  }

  @Test
  void getInfoNamesADraPluginOfTheDriverAndItsDraSocket() throws IOException {
    KubeletPluginServer server = start();

    assertThat(server.registrationSocket()).isEqualTo(registry.resolve(DRIVER + "-reg.sock"));
    assertThat(server.draSocket()).isEqualTo(plugins.resolve(DRIVER).resolve("dra.sock"));
    PluginInfo info = registration(server).getInfo(InfoRequest.getDefaultInstance());

    assertThat(info.getType()).isEqualTo("DRAPlugin");
    assertThat(info.getName()).isEqualTo(DRIVER);
    assertThat(info.getEndpoint()).isEqualTo(server.draSocket().toString());
    assertThat(Path.of(info.getEndpoint())).isAbsolute();
    assertThat(info.getSupportedVersionsList()).containsExactly("v1.DRAPlugin");
    assertThat(isSocket(Path.of(info.getEndpoint()))).isTrue();
  }

  @Test
  void theKubeletsRegistrationStatusIsRecorded() throws IOException {
    KubeletPluginServer server = start();
    RegistrationBlockingStub kubelet = registration(server);
    assertThat(server.registered()).isFalse();
    assertThat(server.lastRegistrationError()).isEmpty();

    kubelet.notifyRegistrationStatus(
        RegistrationStatus.newBuilder()
            .setPluginRegistered(false)
            .setError("endpoint already registered")
            .build());
    assertThat(server.registered()).isFalse();
    assertThat(server.lastRegistrationError()).contains("endpoint already registered");

    kubelet.notifyRegistrationStatus(
        RegistrationStatus.newBuilder().setPluginRegistered(true).build());
    assertThat(server.registered()).isTrue();
    assertThat(server.lastRegistrationError()).isEmpty();

    server.close();
    assertThat(server.registered()).isFalse();
  }

  @Test
  void aClaimTheHandlerThrowsForFailsAloneWithTheExceptionsMessage() throws IOException {
    KubeletPluginServer server = start();

    NodePrepareResourcesResponse response =
        dra(server)
            .nodePrepareResources(
                NodePrepareResourcesRequest.newBuilder()
                    .addClaims(claim("uid-good", "good"))
                    .addClaims(claim("uid-broken", "broken"))
                    .build());

    assertThat(response.getClaimsMap()).containsOnlyKeys("uid-good", "uid-broken");
    NodePrepareResourceResponse good = response.getClaimsOrThrow("uid-good");
    assertThat(good.getError()).isEmpty();
    assertThat(good.getDevicesList())
        .containsExactly(
            Device.newBuilder()
                .addRequestNames("net")
                .setPoolName("node-1")
                .setDeviceName("good-0")
                .build());
    assertThat(good.getDevices(0).hasShareId()).isFalse();
    NodePrepareResourceResponse broken = response.getClaimsOrThrow("uid-broken");
    assertThat(broken.getError()).isEqualTo("no network for claim broken");
    assertThat(broken.getDevicesList()).isEmpty();
    // All at once first, then one at a time to find the claim the exception belongs to.
    assertThat(handler.prepareCalls)
        .containsExactly(List.of("good", "broken"), List.of("good"), List.of("broken"));
  }

  @Test
  void devicesCarryEverythingTheKubeletKeepsAndAForgottenClaimIsAFailureNotASkip()
      throws IOException {
    KubeletPluginServer server = start();

    NodePrepareResourcesResponse response =
        dra(server)
            .nodePrepareResources(
                NodePrepareResourcesRequest.newBuilder()
                    .addClaims(claim("uid-cdi", "cdi"))
                    .addClaims(claim("uid-forgotten", "forgotten"))
                    .addClaims(claim("uid-empty", "empty"))
                    .build());

    assertThat(response.getClaimsOrThrow("uid-cdi").getDevicesList())
        .containsExactly(
            Device.newBuilder()
                .setPoolName("node-1")
                .setDeviceName("cdi-0")
                .addCdiDeviceIds("example.com/net=cdi-0")
                .setShareId("0b5b3c8e-7f3a-4b4f-9d2e-2f1c9a7e5d11")
                .build());
    assertThat(response.getClaimsOrThrow("uid-forgotten").getError())
        .isEqualTo("the driver gave no result for this claim");
    // No devices is a valid preparation: the kubelet just has nothing to hand to the runtime.
    assertThat(response.getClaimsOrThrow("uid-empty").getError()).isEmpty();
    assertThat(response.getClaimsOrThrow("uid-empty").getDevicesList()).isEmpty();
    assertThat(response.getClaimsMap()).doesNotContainKey("uid-not-asked");
  }

  @Test
  void unprepareAnswersEveryClaimWithItsErrorOrNone() throws IOException {
    KubeletPluginServer server = start();

    NodeUnprepareResourcesResponse response =
        dra(server)
            .nodeUnprepareResources(
                NodeUnprepareResourcesRequest.newBuilder()
                    .addClaims(claim("uid-good", "good"))
                    .addClaims(claim("uid-busy", "busy"))
                    .addClaims(claim("uid-broken", "broken"))
                    .addClaims(claim("uid-forgotten", "forgotten"))
                    .build());

    assertThat(response.getClaimsMap())
        .containsOnlyKeys("uid-good", "uid-busy", "uid-broken", "uid-forgotten");
    assertThat(response.getClaimsOrThrow("uid-good").getError()).isEmpty();
    assertThat(response.getClaimsOrThrow("uid-busy").getError()).isEqualTo("interface busy");
    assertThat(response.getClaimsOrThrow("uid-broken").getError())
        .isEqualTo("java.lang.IllegalStateException");
    assertThat(response.getClaimsOrThrow("uid-forgotten").getError())
        .isEqualTo("the driver gave no result for this claim");
    // The batch threw at "broken" after two claims; then one claim at a time: unprepare must be
    // idempotent.
    assertThat(handler.unprepared).containsExactly("good", "busy", "good", "busy", "forgotten");
  }

  @Test
  void closeRemovesBothSocketsButNotTheDriversDirectory() throws IOException {
    KubeletPluginServer server = start();
    Path registration = server.registrationSocket();
    Path dra = server.draSocket();
    assertThat(isSocket(registration)).isTrue();
    assertThat(isSocket(dra)).isTrue();

    server.close();
    server.close(); // idempotent

    assertThat(registration).doesNotExist();
    assertThat(dra).doesNotExist();
    assertThat(plugins.resolve(DRIVER)).isDirectory();
  }

  @Test
  void aSocketLeftByAnEarlierProcessIsReplaced() throws IOException {
    Path draDir = Files.createDirectories(plugins.resolve(DRIVER));
    Path staleDra = staleSocket(draDir.resolve("dra.sock"));
    Path staleRegistration = staleSocket(registry.resolve(DRIVER + "-reg.sock"));
    assertThat(isSocket(staleDra)).isTrue();
    assertThat(isSocket(staleRegistration)).isTrue();

    KubeletPluginServer server = start();

    assertThat(registration(server).getInfo(InfoRequest.getDefaultInstance()).getName())
        .isEqualTo(DRIVER);
    assertThat(
            dra(server)
                .nodeUnprepareResources(
                    NodeUnprepareResourcesRequest.newBuilder()
                        .addClaims(claim("uid-good", "good"))
                        .build())
                .getClaimsOrThrow("uid-good")
                .getError())
        .isEmpty();
  }

  @Test
  void aRegularFileAtTheRegistrationSocketPathFailsTheStartAndIsKept() throws IOException {
    Path file = Files.writeString(registry.resolve(DRIVER + "-reg.sock"), "not mine");

    assertThatThrownBy(this::start)
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("a regular file, not a unix socket");

    assertThat(file).hasContent("not mine");
    // Nothing of the failed start is left behind: no DRA socket either.
    assertThat(plugins.resolve(DRIVER).resolve("dra.sock")).doesNotExist();
  }

  @Test
  void aRegularFileAtTheDraSocketPathFailsTheStartAndIsKept() throws IOException {
    Path file =
        Files.writeString(
            Files.createDirectories(plugins.resolve(DRIVER)).resolve("dra.sock"), "not mine");

    assertThatThrownBy(this::start)
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining(file.toString());

    assertThat(file).hasContent("not mine");
    assertThat(registry.resolve(DRIVER + "-reg.sock")).doesNotExist();
  }

  @Test
  void badDriverNamesAndOverlongSocketPathsAreRefusedUpFront() {
    assertThatThrownBy(() -> KubeletPluginServer.start("Net/Example", registry, plugins, handler))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid DRA driver name");
    Path deep = dir.resolve("x".repeat(100));
    assertThatThrownBy(() -> KubeletPluginServer.start(DRIVER, registry, deep, handler))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(deep.toString())
        .hasMessageContaining("at most 107");
    assertThatThrownBy(
            () -> KubeletPluginServer.start(DRIVER, dir.resolve("nope"), plugins, handler))
        .hasMessageContaining(dir.resolve("nope").toString());
  }

  // --- helpers ---

  private KubeletPluginServer start() throws IOException {
    KubeletPluginServer server = KubeletPluginServer.start(DRIVER, registry, plugins, handler);
    toClose.add(server);
    return server;
  }

  private RegistrationBlockingStub registration(KubeletPluginServer server) {
    return RegistrationGrpc.newBlockingStub(channel(server.registrationSocket()))
        .withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  private DRAPluginBlockingStub dra(KubeletPluginServer server) {
    return DRAPluginGrpc.newBlockingStub(channel(server.draSocket()))
        .withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  /** A client channel as CriRuntimeClient makes one (and as the kubelet dials: unix, plaintext). */
  private ManagedChannel channel(Path socket) {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollDomainSocketChannel.class)
            .eventLoopGroup(clientLoop)
            .usePlaintext()
            .overrideAuthority("localhost")
            .withOption(ChannelOption.SO_KEEPALIVE, null)
            .build();
    toClose.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(5, TimeUnit.SECONDS);
        });
    return channel;
  }

  /** A socket file nobody listens on any more, as a process that died leaves it. */
  private static Path staleSocket(Path path) throws IOException {
    try (ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      listener.bind(UnixDomainSocketAddress.of(path));
    }
    return path;
  }

  private static boolean isSocket(Path path) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    return (mode & 0170000) == 0140000;
  }

  private static Claim claim(String uid, String name) {
    return Claim.newBuilder().setNamespace("team-a").setUid(uid).setName(name).build();
  }

  /** Knows claims by name: "broken" throws, "forgotten" gets no entry, "busy" fails by value. */
  private static final class FakeHandler implements DraHandler {
    final List<List<String>> prepareCalls = Collections.synchronizedList(new ArrayList<>());
    final List<String> unprepared = Collections.synchronizedList(new ArrayList<>());

    @Override
    public Map<String, PrepareResult> prepare(List<ClaimRef> claims) {
      prepareCalls.add(claims.stream().map(ClaimRef::name).toList());
      Map<String, PrepareResult> results = new LinkedHashMap<>();
      for (ClaimRef claim : claims) {
        assertThat(claim.namespace()).isEqualTo("team-a");
        switch (claim.name()) {
          case "broken" -> throw new IllegalStateException("no network for claim broken");
          case "forgotten" -> {}
          case "empty" -> results.put(claim.uid(), PrepareResult.prepared(List.of()));
          case "cdi" ->
              results.put(
                  claim.uid(),
                  PrepareResult.prepared(
                      List.of(
                          new PreparedDevice(
                              List.of(),
                              "node-1",
                              "cdi-0",
                              List.of("example.com/net=cdi-0"),
                              "0b5b3c8e-7f3a-4b4f-9d2e-2f1c9a7e5d11"))));
          default ->
              results.put(
                  claim.uid(),
                  PrepareResult.prepared(
                      List.of(
                          new PreparedDevice(
                              List.of("net"), "node-1", claim.name() + "-0", List.of()))));
        }
      }
      // An answer for a claim that was not asked about is not passed on to the kubelet.
      results.put("uid-not-asked", PrepareResult.failed("not asked"));
      return results;
    }

    @Override
    public Map<String, String> unprepare(List<ClaimRef> claims) {
      Map<String, String> results = new HashMap<>();
      for (ClaimRef claim : claims) {
        switch (claim.name()) {
          case "broken" -> throw new IllegalStateException();
          case "busy" -> results.put(claim.uid(), "interface busy");
          case "forgotten" -> {}
          default -> results.put(claim.uid(), null);
        }
        unprepared.add(claim.name());
      }
      return results;
    }
  }
}
