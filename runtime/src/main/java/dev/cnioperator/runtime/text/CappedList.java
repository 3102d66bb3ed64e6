package dev.cnioperator.runtime.text;

import java.util.List;

/**
 * A list in a message a person reads (a condition's, an Event's): its first {@value #SHOWN} items
 * and how many more, so that a message about a thousand nodes stays short enough to read and to
 * store.
 */
public final class CappedList {
  /** How many items a message names. */
  public static final int SHOWN = 5;

  private CappedList() {}

  /** Names in a sentence: "a, b, c, d, e and 4 more". */
  public static String names(List<String> names) {
    return capped(names, ", ", " and ");
  }

  /** Lines that may hold commas themselves: "a: x; b: y; c: z; d: w; e: v; and 4 more". */
  public static String lines(List<String> lines) {
    return capped(lines, "; ", "; and ");
  }

  private static String capped(List<String> items, String separator, String beforeMore) {
    String shown = String.join(separator, items.subList(0, Math.min(SHOWN, items.size())));
    return items.size() > SHOWN ? shown + beforeMore + (items.size() - SHOWN) + " more" : shown;
  }
}
