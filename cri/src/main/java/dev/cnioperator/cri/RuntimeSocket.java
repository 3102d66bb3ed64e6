package dev.cnioperator.cri;

import dev.cnioperator.cri.CriException.Reason;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The runtime's unix socket: checked before the client connects, and used to explain a failed call
 * (a refused connection says more once we know whether the socket file is still there).
 */
record RuntimeSocket(Path path) {
  /** {@code S_IFMT} and {@code S_IFSOCK} of {@code stat(2)}: the file-type bits of a mode. */
  private static final int FILE_TYPE_MASK = 0170000;

  private static final int SOCKET_TYPE = 0140000;

  RuntimeSocket {
    path = path.toAbsolutePath().normalize();
  }

  /** Throws unless {@code path} is a unix socket this process can connect to. */
  void check() throws CriException {
    int mode;
    try {
      mode = (Integer) Files.getAttribute(path, "unix:mode");
    } catch (NoSuchFileException e) {
      throw new CriException(
          path, Reason.SOCKET_MISSING, "no socket at this path (is the runtime running?)", e);
    } catch (AccessDeniedException e) {
      throw new CriException(path, Reason.PERMISSION_DENIED, "cannot stat the socket", e);
    } catch (IOException | UnsupportedOperationException e) {
      throw new CriException(path, Reason.UNAVAILABLE, "cannot stat the socket: " + e, e);
    }
    if ((mode & FILE_TYPE_MASK) != SOCKET_TYPE) {
      throw new CriException(
          path,
          Reason.NOT_A_SOCKET,
          "the path exists but is not a unix socket"
              + (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS) ? " (a directory)" : ""));
    }
    // connect(2) on a unix socket needs write permission on it.
    if (!Files.isWritable(path)) {
      throw new CriException(
          path, Reason.PERMISSION_DENIED, "this process may not connect (no write permission)");
    }
  }

  /**
   * Throws unless something accepts a connection on the socket now: a plain connect and close, no
   * gRPC, so a runtime that is down is reported at once and one that is back is seen at once.
   */
  void probe(String rpc) throws CriException {
    check();
    try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      probe.connect(UnixDomainSocketAddress.of(path));
    } catch (IOException e) {
      throw new CriException(
          path, Reason.UNAVAILABLE, rpc + " not sent: nobody accepts connections on it: " + e, e);
    }
  }

  /** Explains why {@code rpc} failed, in terms of the socket when the connection was the cause. */
  CriException failure(String rpc, StatusRuntimeException e) {
    Status status = e.getStatus();
    String detail = rpc + " failed: " + status.getCode() + describe(status);
    return switch (status.getCode()) {
      case UNIMPLEMENTED ->
          new CriException(
              path,
              Reason.UNIMPLEMENTED,
              rpc
                  + " is not implemented: the runtime does not serve CRI v1"
                  + " (runtime.v1.RuntimeService); this client speaks only v1"
                  + describe(status),
              e);
      case DEADLINE_EXCEEDED -> new CriException(path, Reason.DEADLINE_EXCEEDED, detail, e);
      case NOT_FOUND -> new CriException(path, Reason.NOT_FOUND, detail, e);
      case UNAVAILABLE -> unavailable(detail, e);
      default -> new CriException(path, Reason.FAILED, detail, e);
    };
  }

  private CriException unavailable(String detail, StatusRuntimeException e) {
    try {
      check();
    } catch (CriException socketProblem) {
      return new CriException(
          path, socketProblem.reason(), detail + "; " + socketMessage(socketProblem), e);
    }
    return new CriException(path, Reason.UNAVAILABLE, detail + " (nobody answers on it?)", e);
  }

  private String socketMessage(CriException socketProblem) {
    String m = socketProblem.getMessage();
    int colon = m.indexOf(": ");
    return colon < 0 ? m : m.substring(colon + 2);
  }

  private static String describe(Status status) {
    return status.getDescription() == null ? "" : ": " + status.getDescription();
  }
}
