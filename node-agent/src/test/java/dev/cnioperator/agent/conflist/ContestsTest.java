package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.host.WriteReason;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.testkit.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one bound on restores, for the agent's own files and for the entries it re-appends. */
class ContestsTest {
  private static final String FILE = "10-flannel.conflist";
  private static final Instant T0 = Instant.parse("2026-12-06T16:00:00Z");

  private final ManualClock clock = new ManualClock(T0);
  private final Contests contests = new Contests(clock);

  private static DesiredConflist chained(String network) {
    String content =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"tuning\"}]}";
    return new DesiredConflist(
        network,
        "50-" + network + ".conflist",
        Sha256.hex(content.getBytes(StandardCharsets.UTF_8)),
        content,
        null,
        "cbr0");
  }

  private static ChainAction.Append reappend(DesiredConflist d) {
    return new ChainAction.Append(d, FILE, "read", new byte[0], "[]", true, new byte[0], "");
  }

  private ChainAction chain(ChainAction planned) {
    List<ChainAction> out = contests.chains(List.of(planned));
    assertThat(out).hasSize(1);
    return out.get(0);
  }

  @Test
  void aChainStrippedAfterEachReappendIsReappendedABoundedNumberOfTimesThenContested() {
    DesiredConflist shaping = chained("shaping");
    for (int i = 0; i < ContestedFiles.RESTORES; i++) {
      clock.set(T0.plusMillis(150L * i));
      assertThat(chain(reappend(shaping)))
          .as("re-append %d", i)
          .isInstanceOf(ChainAction.Append.class);
    }
    clock.set(T0.plusSeconds(1));
    ChainAction held = chain(reappend(shaping));
    assertThat(held).isInstanceOf(ChainAction.Contested.class);
    ChainAction.Contested contested = (ChainAction.Contested) held;
    assertThat(contested.fileName()).isEqualTo(FILE);
    assertThat(contested.why())
        .contains(FILE + " (network cbr0) was rewritten without this network's entries")
        .contains("last 3 re-appends")
        .contains(
            "not appended again before " + T0.plusSeconds(1).plus(ContestedFiles.FIRST_PAUSE));

    // Every look within the pause holds it; after the pause, one more re-append.
    clock.set(T0.plusSeconds(200));
    assertThat(chain(reappend(shaping))).isInstanceOf(ChainAction.Contested.class);
    clock.set(T0.plusSeconds(2).plus(ContestedFiles.FIRST_PAUSE));
    assertThat(chain(reappend(shaping))).isInstanceOf(ChainAction.Append.class);
  }

  @Test
  void theFirstAppendAndAppendsToAnotherFileAreNotRestores() {
    DesiredConflist shaping = chained("shaping");
    ChainAction.Append first =
        new ChainAction.Append(shaping, FILE, "read", new byte[0], "[]", false, new byte[0], "");
    for (int i = 0; i < 10; i++) {
      assertThat(chain(first)).isSameAs(first);
    }
  }

  @Test
  void eachNetworkAppendedToOneFileHasItsOwnBound() {
    DesiredConflist shaping = chained("shaping");
    DesiredConflist mtu = chained("mtu");
    for (int i = 0; i < ContestedFiles.RESTORES; i++) {
      chain(reappend(shaping));
    }
    assertThat(chain(reappend(shaping))).isInstanceOf(ChainAction.Contested.class);
    assertThat(chain(reappend(mtu))).isInstanceOf(ChainAction.Append.class);
  }

  @Test
  void entriesFoundInPlaceDuringThePauseEndTheContest() {
    DesiredConflist shaping = chained("shaping");
    for (int i = 0; i <= ContestedFiles.RESTORES; i++) {
      chain(reappend(shaping));
    }
    clock.set(T0.plusSeconds(60));
    chain(new ChainAction.InPlace(shaping, FILE, new byte[0], "[]", new byte[0], ""));
    assertThat(chain(reappend(shaping))).isInstanceOf(ChainAction.Append.class);
  }

  @Test
  void aDeclarationThatWentForgetsItsContest() {
    DesiredConflist shaping = chained("shaping");
    for (int i = 0; i <= ContestedFiles.RESTORES; i++) {
      chain(reappend(shaping));
    }
    chain(new ChainAction.Drop("shaping", "its entries are no longer in " + FILE));
    assertThat(chain(reappend(shaping))).isInstanceOf(ChainAction.Append.class);
  }

  @Test
  void theAgentsOwnFileHasTheSameBoundAndOnlyDriftCounts() {
    DesiredConflist own =
        new DesiredConflist(
            "pods", "10-pods.conflist", Sha256.hex(new byte[0]), "", ConfigDirectory.Runtime, null);
    ConflistAction update = new ConflistAction.Write(own, WriteReason.UPDATE);
    for (int i = 0; i < 10; i++) {
      assertThat(contests.own(List.of(update), w -> "changed")).containsExactly(update);
    }
    ConflistAction restore = new ConflistAction.Write(own, WriteReason.RESTORE_REMOVED);
    for (int i = 0; i < ContestedFiles.RESTORES; i++) {
      assertThat(contests.own(List.of(restore), w -> "removed")).containsExactly(restore);
    }
    List<ConflistAction> held = contests.own(List.of(restore), w -> "renamed to x.cilium_bak");
    assertThat(held.get(0)).isInstanceOf(ConflistAction.Contested.class);
    assertThat(((ConflistAction.Contested) held.get(0)).message())
        .startsWith("10-pods.conflist was renamed to x.cilium_bak again soon after each");
  }
}
