package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.conflist.ContestedFiles.Key;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ContestedFilesTest {
  private static final Key FILE = new Key(ConfigDirectory.Runtime, "10-podnet.conflist");
  private static final String RENAMED = "renamed to 10-podnet.conflist.cilium_bak";
  private static final Instant T0 = Instant.parse("2026-11-28T18:00:00Z");
  private final ContestedFiles contested = new ContestedFiles();

  private static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  @Test
  void aFileTakenAwayAfterEachRestoreIsRestoredABoundedNumberOfTimesThenPaused() {
    for (int i = 0; i < ContestedFiles.RESTORES; i++) {
      assertThat(contested.restore(FILE, RENAMED, at(i * 2))).as("restore %d", i).isEmpty();
    }
    var contest = contested.restore(FILE, RENAMED, at(10)).orElseThrow();
    assertThat(contest.seen()).isEqualTo(RENAMED);
    assertThat(contest.until()).isEqualTo(at(10).plus(ContestedFiles.FIRST_PAUSE));
    // Every pass within the pause holds it.
    assertThat(contested.restore(FILE, RENAMED, at(200))).isPresent();
    assertThat(contested.contest(FILE, at(200))).isPresent();
  }

  @Test
  void afterThePauseOneMoreRestoreAndAPauseTwiceAsLongWhenThatIsTakenToo() {
    for (int i = 0; i <= ContestedFiles.RESTORES; i++) {
      contested.restore(FILE, RENAMED, at(i));
    }
    Instant afterPause = at(3).plus(ContestedFiles.FIRST_PAUSE).plusSeconds(1);
    assertThat(contested.restore(FILE, RENAMED, afterPause)).isEmpty();
    var again = contested.restore(FILE, RENAMED, afterPause.plusSeconds(2)).orElseThrow();
    assertThat(Duration.between(afterPause.plusSeconds(2), again.until()))
        .isEqualTo(ContestedFiles.FIRST_PAUSE.multipliedBy(2));
  }

  @Test
  void aFileGivenBackDuringThePauseEndsTheContestAtOnce() {
    for (int i = 0; i <= ContestedFiles.RESTORES; i++) {
      contested.restore(FILE, RENAMED, at(i));
    }
    contested.found(FILE, at(60));
    assertThat(contested.contest(FILE, at(61))).isEmpty();
    assertThat(contested.restore(FILE, RENAMED, at(62))).isEmpty();
  }

  @Test
  void restoresFarApartAreDriftNotAContest() {
    Duration apart = ContestedFiles.WINDOW.plusSeconds(1);
    for (int i = 0; i < 10; i++) {
      assertThat(contested.restore(FILE, "removed", T0.plus(apart.multipliedBy(i)))).isEmpty();
    }
  }
}
