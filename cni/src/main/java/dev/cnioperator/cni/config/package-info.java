/**
 * Network configuration (SPEC-1.1.0.md Section 1) and the request configuration derived from it
 * (Section 3): parse and validate configuration lists ({@link
 * dev.cnioperator.cni.config.NetworkConfigList}, {@link
 * dev.cnioperator.cni.config.ConfigValidator}), pick the version to execute with ({@link
 * dev.cnioperator.cni.config.VersionSelection}), derive what each plugin gets on stdin ({@link
 * dev.cnioperator.cni.config.PluginConfig}), render canonical bytes and their sha256 ({@link
 * dev.cnioperator.cni.config.CanonicalJson}), and find a network's file in a directory as libcni
 * does ({@link dev.cnioperator.cni.config.ConfigDirectory}).
 *
 * <p>Where this package knowingly differs from libcni v1.3.0, and why:
 *
 * <ul>
 *   <li>Requests leave out {@code capabilities} (Section 3: "must not be set"); libcni sends it.
 *   <li>Requests keep the plugin object's key order with {@code cniVersion} and {@code name} first,
 *       as the Appendix prints them; libcni re-marshals a Go map, so its keys come sorted. Numbers
 *       are written by value in both (1.0 is 1), but never rounded through float64 here.
 *   <li>Keys starting {@code cni.dev/} in a plugin object are not passed through (Section 3).
 *   <li>Validation is stricter than libcni's parsing (see {@link
 *       dev.cnioperator.cni.config.ConfigValidator}); {@link
 *       dev.cnioperator.cni.config.ValidationLevel#EXECUTABLE} relaxes it for configurations other
 *       tools wrote.
 *   <li>Plugin files in a {@code <dir>/<network>/} sub-directory (libcni 1.3) are not read.
 * </ul>
 *
 * <p>Spec erratum met on the way: the Appendix's bridge requests leave out the {@code ipam.routes}
 * of the Section 1 example they are derived from; Section 3 says fields pass through unaltered, so
 * they are kept (see AppendixGoldenTest).
 */
package dev.cnioperator.cni.config;
