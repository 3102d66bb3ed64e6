package dev.cnioperator.agent.cleanup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.cleanup.StaleAttachmentFinder.Limits;
import dev.cnioperator.agent.cleanup.StaleAttachmentFinder.Observation;
import dev.cnioperator.agent.network.Reservation;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class StaleAttachmentFinderTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration GRACE = Duration.ofSeconds(60);
  private final StaleAttachmentFinder finder = new StaleAttachmentFinder();

  private static final Path STORE = Path.of("/var/lib/cni/networks/n");

  private static Reservation reservation(String ip, String containerId) {
    return new Reservation(STORE, ip, containerId, "eth0");
  }

  private static CachedRef pod(String id, String name, String uid) {
    return new CachedRef(id, "eth0", "/var/run/netns/" + id, "default", name, uid);
  }

  private static LivePods pods(String... nameUid) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < nameUid.length; i += 2) {
      m.put("default/" + nameUid[i], nameUid[i + 1]);
    }
    return LivePods.fromApiServer(m, Set.of());
  }

  private static final Predicate<String> ALL_NETNS = p -> true;

  private StaleDecision find(
      List<CachedRef> cached, LivePods pods, Map<String, Instant> marks, Instant now) {
    return finder.find(
        new Observation(cached, List.of(), pods, ALL_NETNS, marks, 0, now), new Limits(GRACE, 0.5));
  }

  @Test
  void attachmentOfALivePodIsNeverStale() {
    StaleDecision d = find(List.of(pod("c1", "p1", "u1")), pods("p1", "u1"), Map.of(), T0);
    assertThat(d.stale()).isZero();
    assertThat(d.delete()).isEmpty();
    assertThat(d.marks()).isEmpty();
  }

  @Test
  void attachmentOfAGonePodIsMarkedFirstAndNotDeleted() {
    List<CachedRef> cached = List.of(pod("c1", "p1", "u1"), pod("c2", "p2", "u2"));
    StaleDecision d = find(cached, pods("p2", "u2"), Map.of(), T0);
    assertThat(d.stale()).isEqualTo(1);
    assertThat(d.delete()).isEmpty();
    assertThat(d.marks()).containsEntry("attachment/c1/eth0", T0);
  }

  @Test
  void markedAttachmentIsDeletedOnlyAfterTheGracePeriod() {
    List<CachedRef> cached = List.of(pod("c1", "p1", "u1"), pod("c2", "p2", "u2"));
    Map<String, Instant> marks = Map.of("attachment/c1/eth0", T0);
    assertThat(find(cached, pods("p2", "u2"), marks, T0.plusSeconds(59)).delete()).isEmpty();
    StaleDecision due = find(cached, pods("p2", "u2"), marks, T0.plusSeconds(60));
    assertThat(due.delete()).extracting(CachedRef::containerId).containsExactly("c1");
    assertThat(due.marks()).containsEntry("attachment/c1/eth0", T0);
  }

  @Test
  void markIsDroppedWhenThePodComesBack() {
    Map<String, Instant> marks = Map.of("attachment/c1/eth0", T0);
    StaleDecision d =
        find(List.of(pod("c1", "p1", "u1")), pods("p1", "u1"), marks, T0.plusSeconds(90));
    assertThat(d.marks()).isEmpty();
    assertThat(d.delete()).isEmpty();
  }

  @Test
  void podReplacedUnderTheSameNameIsStale() {
    StaleDecision d =
        find(
            List.of(pod("c1", "p1", "old"), pod("c2", "p2", "u2")),
            pods("p1", "new", "p2", "u2"),
            Map.of(),
            T0);
    assertThat(d.stale()).isEqualTo(1);
  }

  @Test
  void attachmentWhoseNetnsIsGoneIsStaleEvenWithoutPodArgs() {
    CachedRef bare = new CachedRef("c1", "eth0", "/var/run/netns/gone", null, null, null);
    CachedRef live = new CachedRef("c2", "eth0", "/var/run/netns/here", null, null, null);
    StaleDecision d =
        finder.find(
            new Observation(
                List.of(bare, live), List.of(), pods(), p -> p.endsWith("here"), Map.of(), 0, T0),
            new Limits(GRACE, 0.5));
    assertThat(d.stale()).isEqualTo(1);
    assertThat(d.marks()).containsOnlyKeys("attachment/c1/eth0");
  }

  @Test
  void attachmentWithoutPodArgsOrNetnsIsLeftAlone() {
    CachedRef unknown = new CachedRef("c1", "eth0", "", null, null, null);
    assertThat(find(List.of(unknown), pods(), Map.of(), T0).stale()).isZero();
  }

  @Test
  void brakeStopsAPassThatWouldReleaseMoreThanTheAllowedShare() {
    List<CachedRef> cached = new ArrayList<>();
    Map<String, Instant> marks = new HashMap<>();
    for (int i = 0; i < 10; i++) {
      cached.add(pod("c" + i, "p" + i, "u" + i));
      marks.put("attachment/c" + i + "/eth0", T0);
    }
    // 8 of 10 pods are gone: 80% > 50%.
    StaleDecision d = find(cached, pods("p8", "u8", "p9", "u9"), marks, T0.plusSeconds(120));
    assertThat(d.braked()).isTrue();
    assertThat(d.deletions()).isZero();
    assertThat(d.stale()).isEqualTo(8);
    assertThat(d.message()).contains("8 of 10");
    assertThat(d.marks()).hasSize(8);
  }

  @Test
  void brakeWeighsStaleItemsStillInTheirGracePeriod() {
    List<CachedRef> cached = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      cached.add(pod("c" + i, "p" + i, "u" + i));
    }
    // Only c0 is due; c1..c7 were just seen stale. Releasing c0 alone would be a first slice.
    StaleDecision d =
        find(
            cached,
            pods("p8", "u8", "p9", "u9"),
            Map.of("attachment/c0/eth0", T0),
            T0.plusSeconds(120));
    assertThat(d.braked()).isTrue();
    assertThat(d.deletions()).isZero();
  }

  @Test
  void releasesWithinTheWindowCountTowardTheBrake() {
    List<CachedRef> cached =
        List.of(pod("c1", "p1", "u1"), pod("c2", "p2", "u2"), pod("c3", "p3", "u3"));
    Map<String, Instant> marks = Map.of("attachment/c1/eth0", T0);
    IntFunction<Observation> seen =
        released ->
            new Observation(
                cached,
                List.of(),
                pods("p2", "u2", "p3", "u3"),
                ALL_NETNS,
                marks,
                released,
                T0.plusSeconds(61));
    // 1 stale of 3 alone is fine; with 4 released recently it is 5 of 7.
    assertThat(finder.find(seen.apply(0), new Limits(GRACE, 0.5)).braked()).isFalse();
    assertThat(finder.find(seen.apply(4), new Limits(GRACE, 0.5)).braked()).isTrue();
  }

  @Test
  void exactlyTheAllowedShareIsReleased() {
    List<CachedRef> cached = new ArrayList<>();
    Map<String, Instant> marks = new HashMap<>();
    List<String> live = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      cached.add(pod("c" + i, "p" + i, "u" + i));
      if (i < 20) {
        live.add("p" + i);
        live.add("u" + i);
      } else {
        marks.put("attachment/c" + i + "/eth0", T0);
      }
    }
    StaleDecision d = find(cached, pods(live.toArray(String[]::new)), marks, T0.plusSeconds(61));
    assertThat(d.braked()).isFalse();
    assertThat(d.delete())
        .hasSize(20)
        .allMatch(c -> Integer.parseInt(c.containerId().substring(1)) >= 20);
  }

  @Test
  void reservationWithoutCacheEntryIsStaleOnlyWhenNoPodHoldsItsIp() {
    List<Reservation> reservations =
        List.of(
            reservation("10.200.0.5", "gone"),
            reservation("10.200.0.6", "held"),
            reservation("10.200.0.7", "c1"));
    LivePods pods = LivePods.fromApiServer(Map.of("default/p1", "u1"), Set.of("10.200.0.6"));
    Map<String, Instant> marks =
        Map.of(reservations.get(0).key(), T0, reservations.get(1).key(), T0);
    StaleDecision d =
        finder.find(
            new Observation(
                List.of(pod("c1", "p1", "u1")),
                reservations,
                pods,
                ALL_NETNS,
                marks,
                0,
                T0.plusSeconds(61)),
            new Limits(GRACE, 1.0));
    assertThat(d.release()).extracting(Reservation::ip).containsExactly("10.200.0.5");
    assertThat(d.marks()).containsOnlyKeys(reservations.get(0).key());
  }

  @Test
  void withTheRuntimeAsSourceASandboxItNoLongerListsIsStaleWhateverTheApiServerSays() {
    LivePods runtime = LivePods.fromRuntime(Set.of("c2"), Set.of());
    StaleDecision d =
        finder.find(
            new Observation(
                List.of(pod("c1", "p1", "u1"), pod("c2", "p2", "u2")),
                List.of(),
                runtime,
                ALL_NETNS,
                Map.of("attachment/c1/eth0", T0),
                0,
                T0.plusSeconds(61)),
            new Limits(GRACE, 0.5));
    assertThat(d.delete()).extracting(CachedRef::containerId).containsExactly("c1");
  }

  @Test
  void withTheRuntimeAsSourceAReservationOfAListedSandboxIsLive() {
    LivePods runtime = LivePods.fromRuntime(Set.of("sb1"), Set.of());
    StaleDecision d =
        finder.find(
            new Observation(
                List.of(),
                List.of(reservation("10.200.0.5", "sb1"), reservation("10.200.0.6", "gone")),
                runtime,
                ALL_NETNS,
                Map.of(
                    reservation("10.200.0.5", "sb1").key(),
                    T0,
                    reservation("10.200.0.6", "gone").key(),
                    T0),
                0,
                T0.plusSeconds(61)),
            new Limits(GRACE, 1.0));
    assertThat(d.release()).extracting(Reservation::ip).containsExactly("10.200.0.6");
  }
}
