package dev.cnioperator.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The certificates of a local control plane, made with openssl in a directory of its own before it
 * starts: {@code apiserver.crt} serves (and is the CA its clients trust, being self-signed) and its
 * key signs service-account tokens; {@code client.crt} is a CA with {@code O=system:masters} that
 * is the admin's certificate and signs the nodes' client certificates. Both are valid for a year,
 * so a quickstart left running does not outlive them; node certificates for two days.
 */
public final class LocalPki {
  private static final String SERVER_NAMES =
      "IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,"
          + "DNS:kubernetes.default.svc.cluster.local";

  private final Path dir;

  private LocalPki(Path dir) {
    this.dir = dir;
  }

  /**
   * Writes {@code client.crt/key} (a CA) and {@code apiserver.crt/key} into {@code dir}; the
   * serving certificate names 127.0.0.1, the {@code kubernetes} Service's names and {@code
   * extraAddresses} (IP addresses the API server is reached at from nodes and their pods, such as a
   * proxy on a node bridge).
   */
  static LocalPki create(Path dir, List<String> extraAddresses) {
    Prerequisites.requireCommand("openssl");
    selfSigned(
        dir,
        "client",
        "/O=system:masters/CN=kubeapitest",
        "basicConstraints=critical,CA:TRUE",
        "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign");
    StringBuilder names = new StringBuilder(SERVER_NAMES);
    for (String a : extraAddresses) {
      if (!a.matches("[0-9.]+|[0-9a-fA-F:]+")) {
        throw new IllegalArgumentException(
            "not an IP address for the API server certificate: " + a);
      }
      names.append(",IP:").append(a);
    }
    selfSigned(dir, "apiserver", "/CN=kubernetes", "subjectAltName=" + names);
    return new LocalPki(dir);
  }

  /** The directory of the certificates. */
  Path dir() {
    return dir;
  }

  /**
   * The API server's serving certificate (self-signed, so also the CA pods get as {@code ca.crt}),
   * valid for 127.0.0.1, the name {@code kubernetes} and the extra addresses given at creation.
   */
  public Path apiServerCert() {
    return dir.resolve("apiserver.crt");
  }

  /**
   * Writes {@code <name>.key} and {@code <name>.crt} into {@code out}: a client certificate for
   * {@code subject} (e.g. {@code /O=system:nodes/CN=system:node:n1}) signed by the client CA.
   */
  public void issueClientCert(String subject, Path out, String name) {
    Path key = out.resolve(name + ".key");
    Path csr = out.resolve(name + ".csr");
    openssl(
        "req",
        "-new",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-subj",
        subject,
        "-out",
        csr);
    openssl(
        "x509",
        "-req",
        "-in",
        csr,
        "-CA",
        dir.resolve("client.crt"),
        "-CAkey",
        dir.resolve("client.key"),
        "-set_serial",
        System.nanoTime(),
        "-days",
        "2",
        "-extfile",
        writeExt(out, name),
        "-out",
        out.resolve(name + ".crt"));
  }

  private static Path writeExt(Path out, String name) {
    Path ext = out.resolve(name + ".ext");
    try {
      Files.writeString(
          ext,
          "keyUsage=critical,digitalSignature,keyEncipherment\n" + "extendedKeyUsage=clientAuth\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ext;
  }

  private static void selfSigned(Path dir, String name, String subject, String... extensions) {
    java.util.List<Object> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "365",
                "-keyout",
                dir.resolve(name + ".key"),
                "-out",
                dir.resolve(name + ".crt"),
                "-subj",
                subject));
    for (String e : extensions) {
      args.add("-addext");
      args.add(e);
    }
    openssl(args.toArray());
  }

  private static void openssl(Object... args) {
    java.util.List<String> cmd = new java.util.ArrayList<>();
    cmd.add("openssl");
    for (Object a : args) {
      cmd.add(a.toString());
    }
    Commands.run(cmd).orThrow(String.join(" ", cmd));
  }
}
