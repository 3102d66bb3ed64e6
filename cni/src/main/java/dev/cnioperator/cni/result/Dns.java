package dev.cnioperator.cni.result;

import java.util.List;

/**
 * The {@code dns} object of a result (SPEC-1.1.0.md, Section 5): nameservers, domain (null when
 * absent), search domains and resolver options. Lists are never null.
 */
public record Dns(
    List<String> nameservers, String domain, List<String> search, List<String> options) {

  public static final Dns EMPTY = new Dns(List.of(), null, List.of(), List.of());

  public Dns {
    nameservers = nameservers == null ? List.of() : List.copyOf(nameservers);
    search = search == null ? List.of() : List.copyOf(search);
    options = options == null ? List.of() : List.copyOf(options);
    domain = domain == null || domain.isEmpty() ? null : domain;
  }

  /** libcni's {@code DNS.IsEmpty}: a 1.x result leaves out an empty dns object. */
  public boolean isEmpty() {
    return nameservers.isEmpty() && domain == null && search.isEmpty() && options.isEmpty();
  }
}
