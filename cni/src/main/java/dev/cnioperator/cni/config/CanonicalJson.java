package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The one byte form of a configuration that machines compare (the operator's rendered conflist, the
 * agent's files on disk, their sha256): the same JSON value always gives the same bytes.
 *
 * <p>The form: UTF-8; object keys sorted by Unicode code point (the order Go's encoder uses for
 * maps, so it matches what libcni re-marshals); two-space indent; {@code "key": value} with one
 * space after the colon; one array element per line; empty objects and arrays as {@code {}} and
 * {@code []}; {@code \n} line ends and a trailing newline; numbers by value ({@code 1.0} is {@code
 * 1}, see {@link JsonText}); strings escape only quote, backslash, control characters and unpaired
 * surrogates (non-ASCII text is written as UTF-8, not escaped).
 */
public final class CanonicalJson {
  private CanonicalJson() {}

  /** The canonical bytes of {@code node}. */
  public static byte[] render(JsonNode node) {
    return JsonText.canonical(node);
  }
}
