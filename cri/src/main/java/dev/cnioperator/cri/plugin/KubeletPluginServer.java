package dev.cnioperator.cri.plugin;

import dev.cnioperator.cri.dra.v1.Claim;
import dev.cnioperator.cri.dra.v1.DRAPluginGrpc;
import dev.cnioperator.cri.dra.v1.Device;
import dev.cnioperator.cri.dra.v1.NodePrepareResourceResponse;
import dev.cnioperator.cri.dra.v1.NodePrepareResourcesRequest;
import dev.cnioperator.cri.dra.v1.NodePrepareResourcesResponse;
import dev.cnioperator.cri.dra.v1.NodeUnprepareResourceResponse;
import dev.cnioperator.cri.dra.v1.NodeUnprepareResourcesRequest;
import dev.cnioperator.cri.dra.v1.NodeUnprepareResourcesResponse;
import dev.cnioperator.cri.pluginregistration.InfoRequest;
import dev.cnioperator.cri.pluginregistration.PluginInfo;
import dev.cnioperator.cri.pluginregistration.RegistrationGrpc;
import dev.cnioperator.cri.pluginregistration.RegistrationStatus;
import dev.cnioperator.cri.pluginregistration.RegistrationStatusResponse;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet plugin of a Dynamic Resource Allocation (DRA) driver: the two gRPC services the
 * kubelet expects of a DRA driver on its node, each on its own unix socket, with the driver's logic
 * behind a {@link DraHandler}.
 *
 * <ul>
 *   <li>{@code pluginregistration.Registration} on {@code <registryDir>/<driver>-reg.sock}. The
 *       kubelet watches its plugin registry directory ({@link #KUBELET_REGISTRY_DIR}); for every
 *       socket that appears there it calls {@code GetInfo} (with a 1 s timeout), checks the answer,
 *       registers the plugin and reports the outcome with {@code NotifyRegistrationStatus}, which
 *       {@link #registered()} and {@link #lastRegistrationError()} tell.
 *   <li>{@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin} (version {@value #DRA_V1_SERVICE}) on
 *       {@code <pluginsDir>/<driver>/dra.sock}, the endpoint {@code GetInfo} names. The kubelet
 *       dials that path itself, so {@code pluginsDir} must be the same directory in this process
 *       and in the kubelet's mount namespace (a host path mounted at the same place, normally
 *       {@link #KUBELET_PLUGINS_DIR}).
 * </ul>
 *
 * <p>Lifetime: one server per driver and process, from {@link #start} to {@link #close}. The
 * registration socket is created last, once the DRA socket serves, because the kubelet connects to
 * the endpoint as soon as it has seen the registration socket; {@link #close} removes it first,
 * which is how the kubelet learns that the plugin is gone. When no plugin of the driver is left,
 * the kubelet deletes the driver's ResourceSlices of this node 30 s later (and it deletes all DRA
 * ResourceSlices of the node when it starts itself): a restarted driver must be serving again
 * within those 30 s, or it publishes its slices again afterwards.
 *
 * <p>The kubelet does not call a gRPC health service on either socket; it watches the connection to
 * the DRA socket instead. No such service is served here.
 */
public final class KubeletPluginServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeletPluginServer.class);

  /** The directory the kubelet watches for plugin registration sockets (its default root). */
  public static final Path KUBELET_REGISTRY_DIR = Path.of("/var/lib/kubelet/plugins_registry");

  /** Where DRA drivers conventionally keep their service sockets, one directory per driver. */
  public static final Path KUBELET_PLUGINS_DIR = Path.of("/var/lib/kubelet/plugins");

  /** {@code PluginInfo.type} of a DRA driver: the kubelet picks its DRA handler by it. */
  public static final String PLUGIN_TYPE = "DRAPlugin";

  /**
   * The service version this server offers in {@code PluginInfo.supported_versions}: {@code <proto
   * package's last element>.<service>} of the v1 DRA API (kubelet 1.34 and later).
   */
  public static final String DRA_V1_SERVICE = "v1.DRAPlugin";

  /** How long {@link #close} lets calls in flight finish before it cuts them off. */
  public static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(5);

  /** {@code sun_path} holds 108 bytes, the terminating NUL among them. */
  private static final int MAX_SOCKET_PATH_BYTES = 107;

  /** A DRA driver name: a DNS subdomain of at most 63 characters (the API server's rule). */
  private static final Pattern DRIVER_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  private static final int MAX_DRIVER_NAME = 63;

  /** {@code S_IFMT} and {@code S_IFSOCK} of {@code stat(2)}: the file-type bits of a mode. */
  private static final int FILE_TYPE_MASK = 0170000;

  private static final int SOCKET_TYPE = 0140000;

  private final String driverName;
  private final Path registrationSocket;
  private final Path draSocket;
  private final DraHandler handler;
  private final EventLoopGroup eventLoop;
  private final AtomicBoolean closed = new AtomicBoolean();

  // Set by bind(), read by close(); both run on the thread that owns this server.
  private Server draServer;
  private Object draSocketKey;
  private Server registrationServer;
  private Object registrationSocketKey;

  private volatile boolean registered;
  private volatile String registrationError;

  private KubeletPluginServer(
      String driverName, Path registrationSocket, Path draSocket, DraHandler handler) {
    this.driverName = driverName;
    this.registrationSocket = registrationSocket;
    this.draSocket = draSocket;
    this.handler = handler;
    // One daemon thread accepts and does the I/O of both servers: a few small calls per pod start.
    // The handler runs on gRPC's executor, never on this thread.
    this.eventLoop = new EpollEventLoopGroup(1, new DefaultThreadFactory("kubelet-plugin", true));
  }

  /**
   * Serves the DRA plugin of {@code driverName}: binds {@code <pluginsDir>/<driverName>/dra.sock}
   * (creating the directory if missing), then {@code <registryDir>/<driverName>-reg.sock}, whose
   * appearance makes the kubelet register the plugin. A socket file left at either path by an
   * earlier process is replaced; any other kind of file there is left alone and fails the start.
   *
   * @param driverName the DRA driver name, as in the driver's ResourceSlices and DeviceClasses
   * @param registryDir the kubelet's plugin registry directory, which must exist (the kubelet makes
   *     it); normally {@link #KUBELET_REGISTRY_DIR}
   * @param pluginsDir the parent of the driver's socket directory, at the same path as the kubelet
   *     sees it; normally {@link #KUBELET_PLUGINS_DIR}
   * @param handler what prepares and unprepares the claims
   * @throws IllegalArgumentException for an invalid driver name or a socket path longer than a unix
   *     socket address allows (107 bytes)
   * @throws IOException when a socket cannot be created (the message names its path); nothing of
   *     this server is left behind then
   */
  public static KubeletPluginServer start(
      String driverName, Path registryDir, Path pluginsDir, DraHandler handler) throws IOException {
    checkDriverName(driverName);
    Objects.requireNonNull(handler, "handler");
    Path registry = registryDir.toAbsolutePath().normalize();
    Path draDir = pluginsDir.toAbsolutePath().normalize().resolve(driverName);
    Path draSocket = draDir.resolve("dra.sock");
    Path registrationSocket = registry.resolve(driverName + "-reg.sock");
    checkLength(draSocket);
    checkLength(registrationSocket);
    if (!Files.isDirectory(registry)) {
      throw new NoSuchFileException(
          registry.toString(),
          null,
          "the kubelet's plugin registry directory does not exist (not mounted from the host?)");
    }
    if (!Epoll.isAvailable()) {
      throw new IOException(
          "netty's native epoll transport is not available here (Linux x86_64 only): "
              + Epoll.unavailabilityCause(),
          Epoll.unavailabilityCause());
    }
    // Before anything is bound: a path taken by something else fails the start with nothing done.
    checkReplaceable(draSocket);
    checkReplaceable(registrationSocket);
    Files.createDirectories(draDir);

    KubeletPluginServer server =
        new KubeletPluginServer(driverName, registrationSocket, draSocket, handler);
    try {
      server.bind();
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    log.info(
        "event=kubelet-plugin-started driver={} registration={} endpoint={}",
        driverName,
        registrationSocket,
        draSocket);
    return server;
  }

  public String driverName() {
    return driverName;
  }

  /** The socket in the kubelet's registry directory. */
  public Path registrationSocket() {
    return registrationSocket;
  }

  /** The DRA service socket, the endpoint given to the kubelet (an absolute path). */
  public Path draSocket() {
    return draSocket;
  }

  /**
   * Whether the kubelet's last {@code NotifyRegistrationStatus} said it registered the plugin;
   * false before the first one and after {@link #close}. A kubelet that restarts registers the
   * plugin again on its own.
   */
  public boolean registered() {
    return registered;
  }

  /**
   * Why the kubelet refused the plugin in its last {@code NotifyRegistrationStatus}, if it did;
   * empty before the first one and once a later one registered it.
   */
  public Optional<String> lastRegistrationError() {
    return Optional.ofNullable(registrationError);
  }

  /**
   * Stops serving: the registration socket goes first, so the kubelet deregisters the plugin, then
   * the DRA socket; calls in flight get {@link #SHUTDOWN_GRACE} in all. Both socket files this
   * server created are deleted; the driver's socket directory stays. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    registered = false;
    long deadline = System.nanoTime() + SHUTDOWN_GRACE.toNanos();
    stop(registrationServer, deadline);
    deleteOwnSocket(registrationSocket, registrationSocketKey);
    stop(draServer, deadline);
    deleteOwnSocket(draSocket, draSocketKey);
    eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    log.info("event=kubelet-plugin-stopped driver={}", driverName);
  }

  private void bind() throws IOException {
    draServer = serve(draSocket, new DraPluginService(), false);
    draSocketKey = fileKey(draSocket);
    // Last: the kubelet dials the endpoint as soon as it sees this socket.
    registrationServer = serve(registrationSocket, new RegistrationService(), true);
    registrationSocketKey = fileKey(registrationSocket);
  }

  private Server serve(Path socket, BindableService service, boolean direct) throws IOException {
    removeStaleSocket(socket);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(eventLoop)
            .workerEventLoopGroup(eventLoop)
            // gRPC asks for TCP keepalive on every accepted connection; a unix socket has none,
            // and netty would log a warning at each connect.
            .withChildOption(ChannelOption.SO_KEEPALIVE, null)
            // A few small messages per pod start: heap buffers, no pooled direct-memory arena.
            .withChildOption(ChannelOption.ALLOCATOR, new UnpooledByteBufAllocator(false))
            .addService(service);
    if (direct) {
      // Registration answers from memory: no need to leave the event loop.
      builder.directExecutor();
    }
    Server server = builder.build();
    try {
      server.start();
    } catch (IOException e) {
      throw new IOException("cannot listen on unix socket " + socket + ": " + e.getMessage(), e);
    }
    return server;
  }

  private static void stop(Server server, long deadline) {
    if (server == null) {
      return;
    }
    server.shutdown();
    try {
      if (!server.awaitTermination(
          Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        server.shutdownNow();
        server.awaitTermination(1, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
  }

  /** Deletes the socket file at {@code path} if it is still the one this server bound. */
  private void deleteOwnSocket(Path path, Object key) {
    if (key == null) {
      return; // never bound: whatever is there is not ours
    }
    try {
      if (key.equals(fileKey(path))) {
        Files.deleteIfExists(path);
      } else {
        log.warn(
            "event=kubelet-plugin-socket-kept driver={} path={} reason=replaced-by-another-file",
            driverName,
            path);
      }
    } catch (NoSuchFileException e) {
      // netty's listener deletes its socket file when it closes
    } catch (IOException e) {
      log.warn(
          "event=kubelet-plugin-socket-not-deleted driver={} path={} error=\"{}\"",
          driverName,
          path,
          quoted(e.toString()));
    }
  }

  private static Object fileKey(Path path) throws IOException {
    return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
  }

  /** Throws unless nothing or a unix socket is at {@code path}. */
  private static void checkReplaceable(Path path) throws IOException {
    int mode;
    try {
      mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return;
    }
    if ((mode & FILE_TYPE_MASK) != SOCKET_TYPE) {
      throw new FileAlreadyExistsException(
          path.toString(),
          null,
          "is "
              + kind(path)
              + ", not a unix socket: left in place, and no plugin socket can be created there");
    }
  }

  private void removeStaleSocket(Path path) throws IOException {
    checkReplaceable(path);
    if (Files.deleteIfExists(path)) {
      log.info("event=kubelet-plugin-stale-socket-removed driver={} path={}", driverName, path);
    }
  }

  private static String kind(Path path) {
    if (Files.isSymbolicLink(path)) {
      return "a symbolic link";
    }
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      return "a directory";
    }
    if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
      return "a regular file";
    }
    return "a special file";
  }

  private static void checkDriverName(String driverName) {
    Objects.requireNonNull(driverName, "driverName");
    if (driverName.length() > MAX_DRIVER_NAME || !DRIVER_NAME.matcher(driverName).matches()) {
      throw new IllegalArgumentException(
          "invalid DRA driver name \""
              + driverName
              + "\": must be a DNS subdomain (lower case letters, digits, '-' and '.') of at most "
              + MAX_DRIVER_NAME
              + " characters");
    }
  }

  private static void checkLength(Path socket) {
    int bytes = socket.toString().getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_SOCKET_PATH_BYTES) {
      throw new IllegalArgumentException(
          "unix socket path "
              + socket
              + " is "
              + bytes
              + " bytes long; a unix socket address holds at most "
              + MAX_SOCKET_PATH_BYTES);
    }
  }

  // --- DRA service ---

  private final class DraPluginService extends DRAPluginGrpc.DRAPluginImplBase {
    @Override
    public void nodePrepareResources(
        NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> out) {
      List<ClaimRef> claims = claims(request.getClaimsList());
      Map<String, Answer<PrepareResult>> answers = ask("prepare", claims, handler::prepare);
      NodePrepareResourcesResponse.Builder response = NodePrepareResourcesResponse.newBuilder();
      for (ClaimRef claim : claims) {
        response.putClaims(claim.uid(), prepareResponse(claim, answers.get(claim.uid())));
      }
      reply(out, response.build());
    }

    @Override
    public void nodeUnprepareResources(
        NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> out) {
      List<ClaimRef> claims = claims(request.getClaimsList());
      Map<String, Answer<String>> answers = ask("unprepare", claims, handler::unprepare);
      NodeUnprepareResourcesResponse.Builder response = NodeUnprepareResourcesResponse.newBuilder();
      for (ClaimRef claim : claims) {
        response.putClaims(claim.uid(), unprepareResponse(claim, answers.get(claim.uid())));
      }
      reply(out, response.build());
    }
  }

  private static List<ClaimRef> claims(List<Claim> claims) {
    // The response is keyed by uid: a claim sent twice is one claim.
    return claims.stream()
        .map(c -> new ClaimRef(c.getNamespace(), c.getUid(), c.getName()))
        .distinct()
        .toList();
  }

  private NodePrepareResourceResponse prepareResponse(
      ClaimRef claim, Answer<PrepareResult> answer) {
    String error;
    if (answer.thrown() != null) {
      error = answer.thrown();
    } else if (answer.value() == null) {
      error = "the driver gave no result for this claim";
    } else if (answer.value().isFailed()) {
      error = answer.value().error();
    } else {
      List<PreparedDevice> devices = answer.value().devices();
      log.info(
          "event=dra-claim-prepared driver={} claim={}/{} uid={} devices={}",
          driverName,
          claim.namespace(),
          claim.name(),
          claim.uid(),
          devices.size());
      NodePrepareResourceResponse.Builder prepared = NodePrepareResourceResponse.newBuilder();
      devices.forEach(d -> prepared.addDevices(device(d)));
      return prepared.build();
    }
    log.warn(
        "event=dra-claim-prepare-failed driver={} claim={}/{} uid={} error=\"{}\"",
        driverName,
        claim.namespace(),
        claim.name(),
        claim.uid(),
        quoted(error));
    return NodePrepareResourceResponse.newBuilder().setError(error).build();
  }

  private NodeUnprepareResourceResponse unprepareResponse(ClaimRef claim, Answer<String> answer) {
    String error;
    if (answer.thrown() != null) {
      error = answer.thrown();
    } else if (answer.missing()) {
      error = "the driver gave no result for this claim";
    } else if (answer.value() == null || answer.value().isBlank()) {
      log.info(
          "event=dra-claim-unprepared driver={} claim={}/{} uid={}",
          driverName,
          claim.namespace(),
          claim.name(),
          claim.uid());
      return NodeUnprepareResourceResponse.getDefaultInstance();
    } else {
      error = answer.value();
    }
    log.warn(
        "event=dra-claim-unprepare-failed driver={} claim={}/{} uid={} error=\"{}\"",
        driverName,
        claim.namespace(),
        claim.name(),
        claim.uid(),
        quoted(error));
    return NodeUnprepareResourceResponse.newBuilder().setError(error).build();
  }

  private static Device device(PreparedDevice d) {
    Device.Builder device =
        Device.newBuilder()
            .addAllRequestNames(d.requestNames())
            .setPoolName(d.poolName())
            .setDeviceName(d.deviceName())
            .addAllCdiDeviceIds(d.cdiDeviceIds());
    if (d.shareId() != null) {
      device.setShareId(d.shareId());
    }
    return device.build();
  }

  /**
   * Asks the handler about all claims at once; if that throws, asks again one claim at a time, so
   * that an exception is the error of the claim it came from only. Results for claims that were not
   * asked about are dropped (the kubelet would fail the whole call for an unknown uid).
   */
  private <R> Map<String, Answer<R>> ask(String op, List<ClaimRef> claims, BatchCall<R> call) {
    Map<String, Answer<R>> answers = new HashMap<>();
    if (claims.isEmpty()) {
      return answers;
    }
    try {
      collect(claims, call.apply(claims), answers);
      return answers;
    } catch (Exception e) {
      if (claims.size() == 1) {
        answers.put(claims.get(0).uid(), Answer.threw(describe(op, claims.get(0), e)));
        return answers;
      }
      log.warn(
          "event=dra-handler-batch-failed driver={} op={} claims={} error=\"{}\""
              + " action=retry-one-claim-at-a-time",
          driverName,
          op,
          claims.size(),
          quoted(String.valueOf(e)));
    }
    for (ClaimRef claim : claims) {
      List<ClaimRef> one = List.of(claim);
      try {
        collect(one, call.apply(one), answers);
      } catch (Exception e) {
        answers.put(claim.uid(), Answer.threw(describe(op, claim, e)));
      }
    }
    return answers;
  }

  private static <R> void collect(
      List<ClaimRef> asked, Map<String, R> result, Map<String, Answer<R>> answers) {
    for (ClaimRef claim : asked) {
      answers.put(
          claim.uid(),
          result != null && result.containsKey(claim.uid())
              ? Answer.answered(result.get(claim.uid()))
              : Answer.absent());
    }
  }

  /** The error text of a handler's exception: its message, else its class. */
  private String describe(String op, ClaimRef claim, Exception e) {
    log.debug("dra handler threw driver={} op={} claim={}", driverName, op, claim, e);
    String message = e.getMessage();
    return message == null || message.isBlank() ? e.getClass().getName() : message;
  }

  @FunctionalInterface
  private interface BatchCall<R> {
    Map<String, R> apply(List<ClaimRef> claims) throws Exception;
  }

  /** What the handler said about one claim: a value (maybe null), nothing, or an exception. */
  private record Answer<R>(R value, boolean missing, String thrown) {
    static <R> Answer<R> answered(R value) {
      return new Answer<>(value, false, null);
    }

    static <R> Answer<R> absent() {
      return new Answer<>(null, true, null);
    }

    static <R> Answer<R> threw(String error) {
      return new Answer<>(null, false, error);
    }
  }

  // --- Registration service ---

  private final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
    @Override
    public void getInfo(InfoRequest request, StreamObserver<PluginInfo> out) {
      log.debug("event=kubelet-plugin-info-asked driver={}", driverName);
      reply(
          out,
          PluginInfo.newBuilder()
              .setType(PLUGIN_TYPE)
              .setName(driverName)
              .setEndpoint(draSocket.toString())
              .addSupportedVersions(DRA_V1_SERVICE)
              .build());
    }

    @Override
    public void notifyRegistrationStatus(
        RegistrationStatus status, StreamObserver<RegistrationStatusResponse> out) {
      if (status.getPluginRegistered()) {
        registrationError = null;
        registered = true;
        log.info("event=kubelet-plugin-registered driver={}", driverName);
      } else {
        String error = status.getError().isBlank() ? "(no reason given)" : status.getError();
        registrationError = error;
        registered = false;
        log.warn(
            "event=kubelet-plugin-registration-failed driver={} error=\"{}\"",
            driverName,
            quoted(error));
      }
      reply(out, RegistrationStatusResponse.getDefaultInstance());
    }
  }

  private <T> void reply(StreamObserver<T> out, T response) {
    try {
      out.onNext(response);
      out.onCompleted();
    } catch (StatusRuntimeException e) {
      // The kubelet gave up on the call (its deadline passed) before the answer was ready.
      log.debug(
          "kubelet call ended before the answer driver={} status={}", driverName, e.getStatus());
    }
  }

  /** For a {@code key="..."} log field: no double quote or line break inside. */
  private static String quoted(String text) {
    return text.replace('"', '\'').replace('\n', ' ').replace('\r', ' ');
  }
}
