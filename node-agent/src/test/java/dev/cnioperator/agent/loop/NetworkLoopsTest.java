package dev.cnioperator.agent.loop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.check.ReportedFailures;
import dev.cnioperator.agent.cleanup.CleanupHistory;
import dev.cnioperator.agent.cleanup.StaleAttachmentCleaner;
import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.ManagedNetwork.CheckSettings;
import dev.cnioperator.agent.network.ManagedNetwork.CleanupSettings;
import dev.cnioperator.agent.network.NetworkHealth;
import dev.cnioperator.agent.observe.AgentLiveness;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.agent.observe.NetworkMetrics;
import dev.cnioperator.agent.observe.NetworkMetrics.CleanupOutcome;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.agent.probe.RevisionProbe;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.IpamSummary;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.cni.config.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class NetworkLoopsTest {
  private static final String SHA = "a".repeat(64);
  private static final Instant NOW = Instant.parse("2026-11-23T10:00:00Z");

  private static final ManagedNetwork NETWORK =
      new ManagedNetwork(
          new DesiredConflist("net", "50-net.conflist", SHA, "{}"),
          null,
          null,
          null,
          new NetworkPlugins("net", "1.0.0", List.of()),
          new CheckSettings(true, Duration.ofSeconds(60)),
          new CleanupSettings(false, Duration.ofSeconds(300), false, 0.5),
          ManagedNetwork.Proof.ATTACHMENT);

  private static ProbeReport report(String sha, ProbeResult result, Instant at) {
    return new ProbeReport().setSha256(sha).setResult(result).setTime(at.toString());
  }

  @Test
  void newContentIsProbedOnce() {
    assertThat(NetworkLoops.probeDue(NETWORK, null, null, NOW)).isTrue();
    assertThat(
            NetworkLoops.probeDue(
                NETWORK, report("b".repeat(64), ProbeResult.Passed, NOW), null, NOW))
        .isTrue();
    assertThat(
            NetworkLoops.probeDue(
                NETWORK, report(SHA, ProbeResult.Passed, NOW.minusSeconds(3600)), null, NOW))
        .isFalse();
  }

  @Test
  void failedProbeIsRetriedEveryCheckInterval() {
    ProbeReport failed = report(SHA, ProbeResult.Failed, NOW.minusSeconds(600));
    Instant attempted = NOW.minusSeconds(59);

    assertThat(NetworkLoops.probeDue(NETWORK, failed, attempted, NOW)).isFalse();
    assertThat(NetworkLoops.probeDue(NETWORK, failed, attempted, NOW.plusSeconds(1))).isTrue();
  }

  @Test
  void nothingIsProbedUnlessTheOperatorAsksForProof() {
    ManagedNetwork unasked =
        new ManagedNetwork(
            NETWORK.conflist(),
            null,
            null,
            null,
            NETWORK.plugins(),
            NETWORK.check(),
            NETWORK.cleanup(),
            ManagedNetwork.Proof.NONE);

    assertThat(NetworkLoops.probeDue(unasked, null, null, NOW)).isFalse();
  }

  @Test
  void aRetryWithTheSameOutcomeKeepsTheEarlierReportSoNoStatusIsWritten() {
    ProbeReport first = report(SHA, ProbeResult.Failed, NOW).setMessage("ADD: boom");
    ProbeReport again =
        report(SHA, ProbeResult.Failed, NOW.plusSeconds(60)).setMessage("ADD: boom");
    ProbeReport other = report(SHA, ProbeResult.Passed, NOW.plusSeconds(60));

    assertThat(NetworkLoops.unlessSame(first, again)).isSameAs(first);
    assertThat(NetworkLoops.unlessSame(first, other)).isSameAs(other);
  }

  /** A valid network of {@code uid} that nothing is due on but what {@code cleanup} asks for. */
  private static ManagedNetwork network(String uid, boolean cleanup, ManagedNetwork.Proof proof) {
    String conflist =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"plugins\":[{\"type\":\"bridge\"}]}";
    return new ManagedNetwork(
        NETWORK.conflist(),
        uid,
        NetworkConfigList.parse(conflist.getBytes(StandardCharsets.UTF_8)),
        null,
        NETWORK.plugins(),
        new CheckSettings(false, Duration.ofSeconds(60)),
        new CleanupSettings(cleanup, Duration.ofSeconds(300), false, 0.5),
        proof);
  }

  /**
   * Steps that prove at once and record the cleanup history each cleanup pass was handed; a cleanup
   * pass holds until {@code endPass} opens, then records one reservation released in the network's
   * series.
   */
  private static final class RecordingSteps implements NetworkWork {
    final List<CleanupHistory> histories = new CopyOnWriteArrayList<>();
    final List<String> steps = new CopyOnWriteArrayList<>();
    final Semaphore cleanups = new Semaphore(0);
    final CountDownLatch endPass;

    RecordingSteps(CountDownLatch endPass) {
      this.endPass = endPass;
    }

    @Override
    public ProbeReport prove(ManagedNetwork n, RevisionProbe.LiveCheck live) {
      return report(n.conflist().sha256(), ProbeResult.Passed, NOW);
    }

    @Override
    public void sweep(ManagedNetwork n) {}

    @Override
    public AttachmentSummary check(
        ManagedNetwork n, ReportedFailures reported, NetworkMetrics metrics) {
      throw new AssertionError("CHECK is off");
    }

    @Override
    public String pluginStatus(ManagedNetwork n) {
      return null;
    }

    @Override
    public StaleAttachmentCleaner.Report clean(
        ManagedNetwork n, CleanupHistory history, NetworkMetrics metrics)
        throws InterruptedException {
      histories.add(history);
      cleanups.release();
      endPass.await();
      metrics.cleanupPass(CleanupOutcome.COMPLETED, 0, 1);
      steps.add("clean");
      return new StaleAttachmentCleaner.Report(new IpamSummary().setReclaimed(0), null, null);
    }

    @Override
    public void claimStatuses(ManagedNetwork n) {
      steps.add("claims");
    }
  }

  /** Network loops whose reports go to {@code reports} as "network@reconcile". */
  private static NetworkLoops loops(
      NetworkWork work, AgentMetrics metrics, BlockingQueue<String> reports) {
    NetworkLoops loops =
        new NetworkLoops(
            work,
            Clock.fixed(NOW, ZoneOffset.UTC),
            metrics,
            new AgentLiveness(Duration.ofSeconds(60), Duration.ofSeconds(30), System::nanoTime));
    loops.start((network, reconcile) -> reports.add(network + "@" + reconcile));
    return loops;
  }

  private static String next(BlockingQueue<String> reports) throws InterruptedException {
    String report = reports.poll(10, TimeUnit.SECONDS);
    assertThat(report).as("a report within 10 s").isNotNull();
    return report;
  }

  private static AgentMetrics metrics() {
    return new AgentMetrics(Duration.ofSeconds(30), Clock.fixed(NOW, ZoneOffset.UTC));
  }

  /** The exposition's lines of the network called "net". */
  private static List<String> seriesOfNet(AgentMetrics metrics) {
    return metrics.scrape().lines().filter(l -> l.contains("network=\"net\"")).toList();
  }

  /**
   * Issue 30: a network's series go with its loop. One gone from the spec exports nothing more; one
   * created again under the same name (another uid) starts at zero, even when the node loop never
   * saw the name go.
   */
  @Test
  void aNetworksSeriesGoWithItsLoopAndAnotherOfTheSameNameStartsAtZero() throws Exception {
    RecordingSteps steps = new RecordingSteps(new CountDownLatch(0));
    AgentMetrics metrics = metrics();
    BlockingQueue<String> reports = new LinkedBlockingQueue<>();
    ManagedNetwork first = network("uid-1", true, ManagedNetwork.Proof.ATTACHMENT);
    ManagedNetwork again = network("uid-2", true, ManagedNetwork.Proof.ATTACHMENT);
    try (NetworkLoops loops = loops(steps, metrics, reports)) {
      loops.applied(1, List.of(first), List.of(first), Map.of());
      assertThat(next(reports)).isEqualTo("net@1");
      assertThat(seriesOfNet(metrics))
          .contains("cni_agent_ipam_reclaimed_total{network=\"net\"} 1.0")
          .contains("cni_agent_ipam_stale_reservations{network=\"net\"} 0.0");

      loops.applied(2, List.of(again), List.of(again), Map.of());
      assertThat(next(reports)).isEqualTo("net@2");
      assertThat(seriesOfNet(metrics))
          .as("the new network's own count, not the old one's plus its own")
          .contains("cni_agent_ipam_reclaimed_total{network=\"net\"} 1.0")
          .contains(
              "cni_agent_ipam_cleanup_passes_total{network=\"net\",outcome=\"completed\"} 1.0");

      assertThat(loops.applied(3, List.of(), List.of(), Map.of())).isEmpty();
      assertThat(seriesOfNet(metrics)).isEmpty();
    }
  }

  /**
   * A run under way when its network leaves the spec ends on the dropped loop; what it records then
   * must not bring the network's series back.
   */
  @Test
  void aRunEndingAfterItsNetworkWentRecordsNothing() throws Exception {
    CountDownLatch endPass = new CountDownLatch(1);
    RecordingSteps steps = new RecordingSteps(endPass);
    AgentMetrics metrics = metrics();
    BlockingQueue<String> reports = new LinkedBlockingQueue<>();
    ManagedNetwork network = network("uid-1", true, ManagedNetwork.Proof.ATTACHMENT);
    try (NetworkLoops loops = loops(steps, metrics, reports)) {
      try {
        loops.applied(1, List.of(network), List.of(network), Map.of());
        assertThat(steps.cleanups.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
        loops.applied(2, List.of(), List.of(), Map.of());
      } finally {
        endPass.countDown();
      }
      assertThat(next(reports)).as("the run has ended").isEqualTo("net@1");
      assertThat(seriesOfNet(metrics)).isEmpty();
    }
  }

  /**
   * The loop is the network's name and uid: the same network keeps its cleanup history from
   * reconcile to reconcile; one created again under the same name (another uid) gets a new history
   * and an empty health, even when the node loop never saw the name go; one gone from the spec is
   * forgotten.
   */
  @Test
  void aNetworkCreatedAgainUnderTheSameNameGetsANewLoop() throws Exception {
    RecordingSteps steps = new RecordingSteps(new CountDownLatch(0));
    BlockingQueue<String> reports = new LinkedBlockingQueue<>();
    ManagedNetwork first = network("uid-1", true, ManagedNetwork.Proof.ATTACHMENT);
    ManagedNetwork again = network("uid-2", true, ManagedNetwork.Proof.ATTACHMENT);
    try (NetworkLoops loops = loops(steps, metrics(), reports)) {
      assertThat(loops.applied(1, List.of(first), List.of(first), Map.of())).containsExactly("net");
      assertThat(next(reports)).isEqualTo("net@1");
      assertThat(steps.histories).as("the first cleanup").hasSize(1);
      assertThat(loops.health("net").probe()).as("the first network's proof").isNotNull();

      assertThat(loops.applied(2, List.of(first), List.of(first), Map.of())).containsExactly("net");
      assertThat(next(reports)).as("a run that found nothing due answers too").isEqualTo("net@2");
      assertThat(steps.histories)
          .as("proven, cleaned, and the next cleanup not due yet")
          .hasSize(1);

      loops.applied(3, List.of(again), List.of(again), Map.of());
      assertThat(next(reports)).isEqualTo("net@3");
      assertThat(steps.histories).as("a new network: its first cleanup").hasSize(2);
      assertThat(steps.histories.get(1))
          .as("the network created again has a history of its own")
          .isNotSameAs(steps.histories.get(0));

      assertThat(loops.applied(4, List.of(), List.of(), Map.of())).isEmpty();
      assertThat(loops.health("net")).as("forgotten").isEqualTo(NetworkHealth.UNKNOWN);
    }
  }

  /**
   * The status's probe report is taken back by a network met for the first time (after a restart),
   * so proven content is not probed again; never by a network created again under the same name.
   * Networks whose conflists the reconcile did not apply (a Conflict) are asked for no run.
   */
  @Test
  void theStatusProbeReportIsTakenBackOnlyByTheFirstLoopOfAName() throws Exception {
    RecordingSteps steps = new RecordingSteps(new CountDownLatch(0));
    ManagedNetwork first = network("uid-1", false, ManagedNetwork.Proof.ATTACHMENT);
    ManagedNetwork again = network("uid-2", false, ManagedNetwork.Proof.NONE);
    ProbeReport before = report(SHA, ProbeResult.Passed, NOW.minusSeconds(3600));
    Map<String, ProbeReport> status = Map.of("net", before);
    try (NetworkLoops loops = loops(steps, metrics(), new LinkedBlockingQueue<>())) {
      assertThat(loops.applied(1, List.of(first), List.of(), status)).isEmpty();
      assertThat(loops.health("net").probe()).isSameAs(before);

      loops.applied(2, List.of(again), List.of(), status);
      assertThat(loops.health("net").probe()).isNull();
    }
  }

  /**
   * A reconcile that asks while a run is under way (its probe has reported, its cleanup has not
   * ended) is answered by the next run, which begins after it, never by the one under way: the node
   * loop writes its status once, with what the run it asked for found. The run under way still
   * reports when it ends, naming the reconcile it answers.
   */
  @Test
  void aReconcileIsAnsweredOnlyByARunThatBeganAfterIt() throws Exception {
    CountDownLatch endPass = new CountDownLatch(1);
    RecordingSteps steps = new RecordingSteps(endPass);
    BlockingQueue<String> reports = new LinkedBlockingQueue<>();
    ManagedNetwork network = network("uid-1", true, ManagedNetwork.Proof.ATTACHMENT);
    List<ManagedNetwork> both = List.of(network);
    try (NetworkLoops loops = loops(steps, metrics(), reports)) {
      try {
        loops.applied(1, both, both, Map.of());
        assertThat(steps.cleanups.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
        assertThat(loops.health("net").probe()).as("the proof has reported").isNotNull();
        loops.applied(2, both, both, Map.of());
        assertThat(reports).as("the run under way has not ended").isEmpty();
      } finally {
        endPass.countDown();
      }
      assertThat(next(reports)).as("the run under way answers the first").isEqualTo("net@1");
      assertThat(next(reports)).as("the next run answers the second").isEqualTo("net@2");
      assertThat(steps.histories).as("one cleanup: the second run found nothing due").hasSize(1);
    }
  }

  /**
   * The claims' status is brought up to date on the network's runs, after its cleanup, as often as
   * the cleanup or, where that is off, as CHECK; a run with nothing else due reports nothing.
   */
  @Test
  void theClaimsStatusIsWrittenAfterTheCleanupAsOftenAsIt() throws Exception {
    RecordingSteps steps = new RecordingSteps(new CountDownLatch(0));
    BlockingQueue<String> reports = new LinkedBlockingQueue<>();
    ManagedNetwork network = network("uid-1", true, ManagedNetwork.Proof.NONE);
    try (NetworkLoops loops = loops(steps, metrics(), reports)) {
      loops.applied(1, List.of(network), List.of(network), Map.of());
      assertThat(next(reports)).isEqualTo("net@1");
      assertThat(steps.steps).containsExactly("clean", "claims");
    }
    assertThat(NetworkLoops.claimsInterval(network)).isEqualTo(Duration.ofSeconds(60));
    assertThat(NetworkLoops.claimsInterval(network("uid-1", false, ManagedNetwork.Proof.NONE)))
        .isEqualTo(Duration.ofSeconds(60));
    ManagedNetwork quick =
        new ManagedNetwork(
            network.conflist(),
            network.uid(),
            network.list(),
            null,
            network.plugins(),
            new CheckSettings(true, Duration.ofSeconds(60)),
            new CleanupSettings(true, Duration.ofSeconds(10), false, 0.5),
            ManagedNetwork.Proof.NONE);
    assertThat(NetworkLoops.claimsInterval(quick)).isEqualTo(Duration.ofSeconds(5));
  }
}
