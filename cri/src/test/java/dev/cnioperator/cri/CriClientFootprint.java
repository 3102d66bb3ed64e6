package dev.cnioperator.cri;

import dev.cnioperator.testkit.containerd.ContainerdFixture;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What the CRI client costs a process: resident memory, heap, threads and classes before the first
 * call and after a hundred rounds of Version, Status and ListPodSandbox against a real containerd.
 * A main in src/test, not a test: run it as root with the test classpath, optionally with a socket.
 * With the system property {@code footprint.withFabric8=true} a fabric8 client (vert.x, netty) is
 * made and used first, as in the node agent, so the figures are what the CRI client adds to it.
 */
public final class CriClientFootprint {
  private CriClientFootprint() {}

  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("cri-footprint");
    ContainerdFixture containerd = null;
    Path socket;
    if (args.length > 0) {
      socket = Path.of(args[0]);
    } else {
      containerd =
          ContainerdFixture.start(
              work, Files.createDirectories(work.resolve("net.d")), Path.of("/usr/lib/cni"));
      socket = containerd.socket();
    }
    try {
      if (Boolean.getBoolean("footprint.withFabric8")) {
        useFabric8Client();
      }
      Figures before = Figures.now();
      nativeMemory("baseline");
      try (CriRuntimeClient client = CriRuntimeClient.connect(socket, Duration.ofSeconds(10))) {
        long firstRound = round(client);
        long t0 = System.nanoTime();
        for (int i = 1; i < 100; i++) {
          round(client);
        }
        long perRound = (System.nanoTime() - t0) / 99 / 1000;
        Figures after = Figures.now();
        System.out.println(nativeMemory("summary.diff"));
        System.out.printf("cri-footprint before: %s%n", before);
        System.out.printf("cri-footprint after 100 rounds (client open): %s%n", after);
        System.out.printf(
            "cri-footprint delta: rss=+%d KiB heapUsed=+%d KiB threads=+%d classes=+%d;"
                + " one round (Version+Status+ListPodSandbox): first %d us, then ~%d us each%n",
            after.rssKib - before.rssKib,
            after.heapKib - before.heapKib,
            after.threads - before.threads,
            after.classes - before.classes,
            firstRound,
            perRound);
      }
    } finally {
      if (containerd != null) {
        containerd.close();
      }
    }
  }

  /**
   * Runs a {@code VM.native_memory} diagnostic command; prints nothing useful unless the JVM runs
   * with {@code -XX:NativeMemoryTracking=summary}.
   */
  private static String nativeMemory(String subcommand) throws Exception {
    return (String)
        ManagementFactory.getPlatformMBeanServer()
            .invoke(
                new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
                "vmNativeMemory",
                new Object[] {new String[] {subcommand}},
                new String[] {String[].class.getName()});
  }

  /** A request to a closed loopback port: enough to load and start vert.x and netty. */
  private static void useFabric8Client() {
    var config =
        new io.fabric8.kubernetes.client.ConfigBuilder()
            .withMasterUrl("https://127.0.0.1:1")
            .withRequestRetryBackoffLimit(0)
            .build();
    try (var client =
        new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config).build()) {
      client.namespaces().list();
    } catch (RuntimeException expected) {
      // nothing listens there
    }
  }

  private static long round(CriRuntimeClient client) throws CriException {
    long t0 = System.nanoTime();
    client.version();
    client.status();
    client.listPodSandboxes();
    return (System.nanoTime() - t0) / 1000;
  }

  private record Figures(long rssKib, long heapKib, int threads, int classes) {
    static Figures now() throws IOException {
      System.gc();
      long rss =
          Files.readAllLines(Path.of("/proc/self/status")).stream()
              .filter(l -> l.startsWith("VmRSS:"))
              .map(l -> Long.parseLong(l.replaceAll("\\D", "")))
              .findFirst()
              .orElse(-1L);
      Runtime rt = Runtime.getRuntime();
      return new Figures(
          rss,
          (rt.totalMemory() - rt.freeMemory()) / 1024,
          Thread.activeCount(),
          ManagementFactory.getClassLoadingMXBean().getLoadedClassCount());
    }

    @Override
    public String toString() {
      return "rss=%d KiB heapUsed=%d KiB threads=%d classes=%d"
          .formatted(rssKib, heapKib, threads, classes);
    }
  }
}
