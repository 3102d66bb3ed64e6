package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.conflist.ContestedFiles.Key;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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

  /**
   * The whole schedule, one pass a minute (the default resync), the file taken away after every
   * restore: the numbers docs/install.md, docs/operations.md and node-agent/README.md give.
   */
  @Test
  void theScheduleOfRestoresAndPausesAtOnePassAMinute() {
    List<String> schedule = new ArrayList<>();
    int restores = 0;
    Instant pausedUntil = null;
    for (long minute = 0; minute <= 4 * 60; minute++) {
      Instant now = at(minute * 60);
      var contest = contested.restore(FILE, RENAMED, now);
      if (contest.isEmpty()) {
        restores++;
      } else if (!contest.get().until().equals(pausedUntil)) {
        pausedUntil = contest.get().until();
        schedule.add("restores: " + restores);
        schedule.add("pause: " + Duration.between(now, pausedUntil).toMinutes() + " min");
        restores = 0;
      }
    }
    assertThat(schedule)
        .containsExactly(
            "restores: 3", "pause: 5 min",
            "restores: 1", "pause: 10 min",
            "restores: 3", "pause: 20 min",
            "restores: 3", "pause: 40 min",
            "restores: 3", "pause: 60 min",
            "restores: 3", "pause: 60 min",
            "restores: 3", "pause: 60 min");
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
