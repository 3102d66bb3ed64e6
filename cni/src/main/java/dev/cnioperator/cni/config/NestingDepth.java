package dev.cnioperator.cni.config;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;

/**
 * Refuses a configuration tree nested deeper than JSON parsers read back. A list parsed from bytes
 * cannot be (the parser stops at {@link StreamReadConstraints#DEFAULT_MAX_DEPTH}), but one built in
 * memory, as the operator builds one from a CniNetwork, can, and rendering it recursively would end
 * in a StackOverflowError, or in bytes no node could parse. Walks the tree without recursion.
 */
final class NestingDepth {
  /** The depth Jackson (and so every reader of our rendered bytes here) accepts. */
  static final int MAX = StreamReadConstraints.DEFAULT_MAX_DEPTH;

  /** Paths are spelled out this deep and no deeper: the message must stay readable. */
  private static final int SHOWN = 6;

  private record Entry(JsonNode node, String path, int depth) {}

  private NestingDepth() {}

  static Optional<ConfigProblem> check(JsonNode root) {
    Deque<Entry> pending = new ArrayDeque<>();
    pending.push(new Entry(root, "", 1));
    while (!pending.isEmpty()) {
      Entry e = pending.pop();
      if (e.depth() > MAX) {
        return Optional.of(
            new ConfigProblem(
                e.path(),
                ConflistRule.NESTING_DEPTH,
                "the configuration nests objects and arrays deeper than "
                    + MAX
                    + " levels, more than a JSON parser reads back"));
      }
      if (e.node().isObject()) {
        for (Map.Entry<String, JsonNode> member : e.node().properties()) {
          push(pending, e, member.getValue(), p -> JsonPath.field(p, member.getKey()));
        }
      } else if (e.node().isArray()) {
        for (int i = 0; i < e.node().size(); i++) {
          int index = i;
          push(pending, e, e.node().get(i), p -> JsonPath.index(p, index));
        }
      }
    }
    return Optional.empty();
  }

  private static void push(
      Deque<Entry> pending,
      Entry parent,
      JsonNode child,
      java.util.function.UnaryOperator<String> segment) {
    if (child.isContainerNode()) {
      String path = parent.depth() < SHOWN ? segment.apply(parent.path()) : parent.path();
      pending.push(new Entry(child, path, parent.depth() + 1));
    }
  }
}
