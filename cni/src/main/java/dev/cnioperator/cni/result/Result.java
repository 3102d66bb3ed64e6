package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.util.List;

/**
 * A plugin's ADD result (SPEC-1.1.0.md, Section 5 "ADD Success") in the shape of its own version,
 * with a typed view in the current shape (interfaces, ips, routes, dns) whatever that version is.
 *
 * <p>A result read from JSON keeps that JSON, so fields this library does not know are written back
 * untouched by {@link #toJson()} at the same version; {@link #convertTo} follows libcni's rules
 * and, like libcni, writes only the fields the target version defines.
 */
public sealed interface Result permits Result100, Result040, Result020 {

  /** The version whose shape this result has. */
  CniVersion cniVersion();

  /** The JSON this result was read from (a copy), or null for one built in code or converted. */
  ObjectNode raw();

  /** This result in its version's wire shape (a fresh copy, free to modify). */
  default ObjectNode toJson() {
    ObjectNode raw = raw();
    return raw != null ? raw : ResultEncoder.encode(this);
  }

  /**
   * This result exactly as libcni would marshal it: only the fields its version defines, addresses
   * in Go's printed form, libcni's key order. What libcni itself writes into its result cache.
   */
  default ObjectNode toCanonicalJson() {
    return ResultEncoder.encode(this);
  }

  /** {@link #toJson()} as compact UTF-8 JSON bytes. */
  default byte[] toBytes() {
    return ResultJson.toBytes(toJson());
  }

  /**
   * This result in the shape of {@code target}, converted as libcni converts it; the same result
   * when it already has that version.
   *
   * @throws dev.cnioperator.cni.CniException INCOMPATIBLE_VERSION when libcni would refuse (an
   *     unknown version, or 0.1.0/0.2.0 from a result without any IP address)
   */
  default Result convertTo(CniVersion target) {
    return ResultConverter.convert(this, target);
  }

  /** Interfaces the attachment created; empty for 0.1.0/0.2.0 results. */
  List<Interface> interfaces();

  /** IP configurations; for 0.1.0/0.2.0 results, ip4 then ip6. */
  List<IpConfig> ips();

  /** Routes; for 0.1.0/0.2.0 results, ip4's then ip6's. */
  List<Route> routes();

  /** DNS configuration, {@link Dns#EMPTY} when the result has none. */
  Dns dns();
}
