/**
 * CNI results (SPEC-1.1.0.md, Section 5) in every version's shape, converted with libcni's rules.
 *
 * <p>Entry points: {@link dev.cnioperator.cni.result.Results} (plugin stdout or stored JSON to a
 * {@link dev.cnioperator.cni.result.Result}, VERSION output to a {@link
 * dev.cnioperator.cni.result.VersionResult}), {@link dev.cnioperator.cni.result.PluginErrors}
 * (error output), {@link dev.cnioperator.cni.result.IpamResult} (delegated IPAM plugins).
 *
 * <p>Where this package is stricter than libcni, on purpose, so that bad plugin output is reported
 * at the field instead of travelling on:
 *
 * <ul>
 *   <li>a 0.3.x/0.4.0 {@code ips[].version} that contradicts the address is refused (libcni keeps
 *       it and files the address under the wrong family when converting to 0.2.0); an absent one is
 *       derived from the address (libcni would leave that address out of a 0.2.0 conversion);
 *   <li>a negative {@code ips[].interface} is refused (the spec says uint);
 *   <li>a {@code cniVersion} that is not a string is refused (libcni's exec path overwrites it);
 *   <li>integers must fit 32 bits;
 *   <li>{@code null} elements inside arrays are refused (libcni would dereference them).
 * </ul>
 *
 * <p>And where it keeps more: a parsed result written at its own version is the JSON the plugin
 * printed, unknown fields included; {@link dev.cnioperator.cni.result.Result#toCanonicalJson()}
 * gives libcni's own marshalling when byte equality with libcni matters.
 */
package dev.cnioperator.cni.result;
