package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An operator restart with nothing changed writes nothing: counted by the API server (its request
 * metrics), not by the operator's own account.
 */
class OperatorRestartIT {

  private ClusterFixture cluster;

  @BeforeEach
  void setUp() {
    cluster = new ClusterFixture();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  @Test
  void restartWithNothingChangedMakesNoWrites() {
    String a = cluster.node("rst");
    String b = cluster.node("rst");
    String ready = "rst-ready-" + cluster.pool;
    String refused = "rst-refused-" + cluster.pool;
    // Named so that the older also wins the tie-break when both get the same creation second.
    String older = "rst-a-older-" + cluster.pool;
    String clashing = "rst-b-clash-" + cluster.pool;
    cluster.apply(ready, cluster.bridgeSpec("ct-rst0", "10.200.8.0/24")).orThrow("apply");
    cluster
        .apply(refused, cluster.bridgeSpec("ct-rst1", "10.200.9.0/24") + "    cni.dev/x: 1\n")
        .orThrow("apply");
    cluster
        .apply(
            older,
            "  networkName: rst-"
                + cluster.pool
                + "\n"
                + cluster.bridgeSpec("ct-rst2", "10.200.10.0/24"))
        .orThrow("apply");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(a).contains(older));
    cluster
        .apply(
            clashing,
            "  networkName: rst-"
                + cluster.pool
                + "\n"
                + cluster.bridgeSpec("ct-rst3", "10.200.11.0/24"))
        .orThrow("apply");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(
            () -> cluster.networksOn(a).contains(ready) && cluster.networksOn(b).contains(ready));
    cluster.agentReportsApplied(a);
    cluster.agentReportsApplied(b);
    cluster.awaitCondition(ready, "Ready", "True");
    cluster.awaitCondition(refused, "Accepted", "False");
    cluster.awaitCondition(clashing, "Accepted", "False");
    awaitNoWritesFor(Duration.ofSeconds(4));

    TestOperator operator = TestOperator.shared();
    operator.stop();
    long before = ApiServerMetrics.writes(cluster.client);
    operator.start();
    // JOSDK reconciles every CniNetwork and Node once as it starts, and counts a reconciliation
    // once it has returned, its writes made: as many as there are objects (4 networks and 2 nodes
    // of this test at least) means the restart's work is done, whatever it wrote counted below.
    long objects =
        cluster.client.resources(CniNetwork.class).list().getItems().size()
            + cluster.client.nodes().list().getItems().size();
    assertThat(objects).isGreaterThanOrEqualTo(6);
    await("reconciliations after the restart, one per CniNetwork and Node")
        .atMost(ClusterFixture.WAIT)
        .until(() -> reconciliations(operator) >= objects);
    long after = ApiServerMetrics.writes(cluster.client);

    assertThat(before).as("the API server counted the writes of the set-up").isPositive();
    assertThat(after - before).as("writes after a restart with nothing changed").isZero();
  }

  /**
   * Both controllers read every CniNode from one informer, so the API server sends each CniNode
   * write to the operator once, not once per controller: the operator holds one CniNode watch.
   */
  @Test
  void theOperatorHoldsOneCniNodeWatch() {
    TestOperator operator = TestOperator.shared();
    await().atMost(ClusterFixture.WAIT).until(operator::ready);
    long running = ApiServerMetrics.watches(cluster.client, "cninodes");

    operator.stop();
    await("the operator's CniNode watches close")
        .atMost(ClusterFixture.WAIT)
        .until(() -> ApiServerMetrics.watches(cluster.client, "cninodes") < running);
    // The API server counts a watch gone when it sees its connection close: a second watch of the
    // operator could close a moment after the first. The count is read once it has settled.
    long stopped = awaitSettledCniNodeWatches();
    operator.start();
    await().atMost(ClusterFixture.WAIT).until(operator::ready);
    long restarted = ApiServerMetrics.watches(cluster.client, "cninodes");

    assertThat(running - stopped).as("CniNode watches the operator closed as it stopped").isOne();
    assertThat(restarted - stopped).as("CniNode watches the operator opened as it started").isOne();
  }

  /** The API server's count of CniNode watches once two readings a second apart agree. */
  private long awaitSettledCniNodeWatches() {
    AtomicLong last = new AtomicLong(-1);
    await("the CniNode watch count settles")
        .atMost(ClusterFixture.WAIT)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                last.getAndSet(ApiServerMetrics.watches(cluster.client, "cninodes")) == last.get());
    return last.get();
  }

  /** Waits until the API server serves no write for {@code quiet}. */
  private void awaitNoWritesFor(Duration quiet) {
    AtomicLong last = new AtomicLong(-1);
    await("no writes for " + quiet)
        .atMost(ClusterFixture.WAIT)
        .pollInterval(quiet)
        .until(() -> last.getAndSet(ApiServerMetrics.writes(cluster.client)) == last.get());
  }

  /** Reconciliations the current operator instance finished, from JOSDK's Micrometer meters. */
  private static double reconciliations(TestOperator operator) {
    double total = 0;
    for (Meter m : operator.registry().getMeters()) {
      String name = m.getId().getName();
      if (name.contains("reconciliations") && name.contains("success")) {
        total +=
            m instanceof Counter c ? c.count() : m instanceof FunctionCounter f ? f.count() : 0;
      }
    }
    return total;
  }
}
