package dev.cnioperator.runtime.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CappedListTest {
  private static final List<String> SEVEN = List.of("a", "b", "c", "d", "e", "f", "g");

  @Test
  void namesTheFirstFiveAndCountsTheRest() {
    assertThat(CappedList.names(SEVEN)).isEqualTo("a, b, c, d, e and 2 more");
    assertThat(CappedList.lines(SEVEN)).isEqualTo("a; b; c; d; e; and 2 more");
  }

  @Test
  void fiveOrFewerAreAllNamed() {
    assertThat(CappedList.names(SEVEN.subList(0, 5))).isEqualTo("a, b, c, d, e");
    assertThat(CappedList.lines(List.of("a: x, y"))).isEqualTo("a: x, y");
    assertThat(CappedList.names(List.of())).isEmpty();
  }
}
