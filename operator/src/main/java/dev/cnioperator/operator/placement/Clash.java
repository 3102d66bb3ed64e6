package dev.cnioperator.operator.placement;

/**
 * Why a network is kept off a node: an older CniNetwork ({@code holder}) already puts {@code what}
 * there; {@code note}, when not null, says how the holder uses it.
 */
public record Clash(String holder, String what, String note) {

  /** A clash that needs no note. */
  public Clash(String holder, String what) {
    this(holder, what, null);
  }

  /**
   * "network name "dbnet" is held by CniNetwork "dbnet-old"", followed by the note in parentheses
   * when there is one.
   */
  public String describe() {
    String held = what + " is held by CniNetwork \"" + holder + "\"";
    return note == null ? held : held + " (" + note + ")";
  }
}
