package dev.cnioperator.cni.result;

/**
 * One entry of a result's {@code interfaces} list (SPEC-1.1.0.md, Section 5). {@code mtu}, {@code
 * socketPath} and {@code pciID} exist from 1.1.0 on; 0.3.x/0.4.0 results carry only name, mac and
 * sandbox. Absent values are null; {@code name} is never null (libcni writes it always).
 */
public record Interface(
    String name, String mac, Integer mtu, String sandbox, String socketPath, String pciID) {

  public Interface {
    name = name == null ? "" : name;
    mtu = mtu == null || mtu == 0 ? null : mtu; // libcni: an int where 0 means "not set"
  }

  /** An interface as 0.3.x/0.4.0 results describe it. */
  public static Interface of(String name, String mac, String sandbox) {
    return new Interface(name, mac, null, sandbox, null, null);
  }

  /** This interface without the fields 0.3.x/0.4.0 do not know, as libcni converts it. */
  Interface withoutV1Fields() {
    return of(name, mac, sandbox);
  }
}
