package dev.cnioperator.agent.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.runtime.health.HealthServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the agent counts as stuck, on a clock the test moves. */
class AgentLivenessTest {
  private static final Duration RESYNC = Duration.ofSeconds(60);
  private static final Duration PLUGIN_TIMEOUT = Duration.ofSeconds(30);

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AgentLiveness liveness = new AgentLiveness(RESYNC, PLUGIN_TIMEOUT, nanos::get);

  private void advance(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  /** What a healthy agent does in {@code d}: a node pass a resync, a tick a second. */
  private void runHealthy(Duration d) {
    for (long s = 0; s < d.toSeconds(); s++) {
      if (s % RESYNC.toSeconds() == 0) {
        liveness.nodeTaskBegan();
        liveness.nodeTaskEnded();
      }
      liveness.ticked();
      advance(Duration.ofSeconds(1));
    }
  }

  @Test
  void anAgentWhoseLoopsComeRoundIsLive() {
    runHealthy(Duration.ofHours(1));
    assertThat(liveness.get()).isEmpty();
  }

  @Test
  void aNodePassUnderWayPastItsLimitIsStuckAndOneWithinItIsNot() {
    liveness.nodeTaskBegan();
    for (int s = 0; s < AgentLiveness.NODE_TASK_LIMIT.toSeconds(); s++) {
      liveness.ticked();
      advance(Duration.ofSeconds(1));
    }
    assertThat(liveness.get()).as("a pass as long as its limit").isEmpty();

    advance(Duration.ofSeconds(1));
    liveness.ticked();
    assertThat(liveness.get())
        .hasValue("the node loop has been on one reconcile or status write for 601s (limit 600s)");

    liveness.nodeTaskEnded();
    assertThat(liveness.get()).isEmpty();
  }

  @Test
  void aNodePassLoopThatStopsComingRoundIsStuck() {
    runHealthy(Duration.ofMinutes(5));
    Duration idle = RESYNC.plus(AgentLiveness.NODE_IDLE_SLACK);
    for (long s = 0; s <= idle.toSeconds(); s++) {
      liveness.ticked();
      advance(Duration.ofSeconds(1));
    }
    assertThat(liveness.get())
        .get()
        .asString()
        .startsWith("the node loop has ended no reconcile or status write for ")
        .endsWith("(limit 180s) (resync 60s)");
  }

  @Test
  void aTickerThatStopsIsStuck() {
    liveness.ticked();
    advance(AgentLiveness.TICKER_LIMIT);
    assertThat(liveness.get()).isEmpty();
    advance(Duration.ofSeconds(1));
    assertThat(liveness.get()).hasValue("the networks' timer has not ticked for 31s (limit 30s)");
  }

  @Test
  void aPluginRunThatOutlivesItsKillIsStuckAndNamed() {
    long run = liveness.pluginRunBegan("bridge", "CHECK", PLUGIN_TIMEOUT);
    runHealthy(PLUGIN_TIMEOUT.plus(AgentLiveness.PLUGIN_KILL_GRACE));
    assertThat(liveness.get()).isEmpty();

    runHealthy(Duration.ofSeconds(1));
    assertThat(liveness.get())
        .hasValue(
            "plugin bridge CHECK has run for 61s (limit 60s): the kill at its timeout did not"
                + " stop it");

    liveness.pluginRunEnded(run);
    assertThat(liveness.get()).isEmpty();
  }

  /**
   * A network pass over many attachments takes as long as it takes while plugin runs end; one
   * during which nothing moves for the plugin timeout and the slack is stuck.
   */
  @Test
  void aNetworkPassIsStuckOnlyWhenNothingMovesForThePluginTimeoutAndTheSlack() {
    liveness.networkRunBegan();
    for (int i = 0; i < 100; i++) {
      long run = liveness.pluginRunBegan("bridge", "CHECK", PLUGIN_TIMEOUT);
      runHealthy(PLUGIN_TIMEOUT);
      liveness.pluginRunEnded(run);
    }
    assertThat(liveness.get()).as("50 minutes of CHECKs, each ending").isEmpty();

    Duration quiet = PLUGIN_TIMEOUT.plus(AgentLiveness.NETWORK_QUIET_SLACK);
    runHealthy(quiet);
    assertThat(liveness.get()).isEmpty();
    runHealthy(Duration.ofSeconds(1));
    assertThat(liveness.get())
        .hasValue(
            "network runs are under way but none began or ended and no plugin run ended for"
                + " 121s (limit 120s)");

    liveness.networkRunEnded();
    assertThat(liveness.get()).as("no pass under way: nothing to move").isEmpty();
  }

  /**
   * The API server unreachable: every node pass ends at once as api_unreachable and no plugin runs,
   * for as long as the outage lasts. Nothing there is stuck.
   */
  @Test
  void anApiServerOutageNeverMakesTheAgentStuck() {
    runHealthy(Duration.ofHours(6));
    assertThat(liveness.get()).isEmpty();
  }

  @Test
  void everyReasonThatHoldsIsGiven() {
    liveness.nodeTaskBegan();
    liveness.pluginRunBegan("ptp", "DEL", PLUGIN_TIMEOUT);
    advance(Duration.ofMinutes(11));
    assertThat(liveness.get())
        .get()
        .asString()
        .contains("the node loop has been on one reconcile")
        .contains("; the networks' timer has not ticked")
        .contains("; plugin ptp DEL has run for 660s");
  }

  /** /healthz, as the kubelet asks it: 503 and the reason while stuck, 200 once moving again. */
  @Test
  void healthzAnswers503WithTheReasonWhileStuck() throws Exception {
    try (HealthServer server =
        new HealthServer(
            new InetSocketAddress("127.0.0.1", 0), liveness, Optional::empty, () -> "")) {
      server.start();
      HttpClient http = HttpClient.newHttpClient();
      URI healthz = URI.create("http://127.0.0.1:" + server.port() + "/healthz");

      assertThat(get(http, healthz).statusCode()).isEqualTo(200);

      advance(Duration.ofSeconds(31));
      HttpResponse<String> stuck = get(http, healthz);
      assertThat(stuck.statusCode()).isEqualTo(503);
      assertThat(stuck.body())
          .isEqualTo("not live: the networks' timer has not ticked for 31s (limit 30s)\n");

      liveness.ticked();
      assertThat(get(http, healthz).statusCode()).isEqualTo(200);
    }
  }

  private static HttpResponse<String> get(HttpClient http, URI uri) throws Exception {
    return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
  }
}
