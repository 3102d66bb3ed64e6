package dev.cnioperator.cni.runtime;

import dev.cnioperator.cni.CniException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * GC of a network failed somewhere: every failure of the run (stale attachments that could not be
 * deleted, plugins whose GC failed), since GC keeps going after an error (SPEC-1.1.0.md Section 3).
 * Code and msg are the first failure's.
 */
public class GcException extends CniException {
  private static final long serialVersionUID = 1L;

  private final transient List<CniException> failures;

  public GcException(String network, List<CniException> failures) {
    super(
        failures.get(0).code(),
        "GC of network " + network + " failed " + failures.size() + " time(s)",
        failures.stream().map(Throwable::getMessage).collect(Collectors.joining("; ")));
    this.failures = List.copyOf(failures);
    failures.forEach(this::addSuppressed);
  }

  public List<CniException> failures() {
    return failures;
  }
}
