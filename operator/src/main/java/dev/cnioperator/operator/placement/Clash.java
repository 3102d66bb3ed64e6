package dev.cnioperator.operator.placement;

/**
 * Why a network is kept off a node: an older CniNetwork ({@code holder}) already puts {@code what}
 * there.
 */
public record Clash(String holder, String what) {

  /** "network name "dbnet" is held by CniNetwork "dbnet-old"". */
  public String describe() {
    return what + " is held by CniNetwork \"" + holder + "\"";
  }
}
