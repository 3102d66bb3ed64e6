package dev.cnioperator.operator.template;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.cni.config.ConfigRule;
import dev.cnioperator.operator.slices.SliceOfNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-node values in a configuration list: a JSON string that is exactly {@code "$(node.<value>)"}
 * is replaced, as a whole JSON value, by that value of the node the list is rendered for (a CIDR
 * stays a string, a list stays a list), and {@code "$$("} is written as a literal {@code "$("}.
 *
 * <p>The values: {@code node.name}; {@code node.podCIDR} (the first pod CIDR), {@code
 * node.podCIDR.ipv4}, {@code node.podCIDR.ipv6}, {@code node.podCIDRs} (a list); {@code
 * node.hostLocalRanges} (host-local's {@code ranges}: one range set per pod CIDR, so one per family
 * on a dual-stack node); {@code node.internalIP}, {@code node.internalIPs} (a list); {@code
 * node.labels[<key>]} and {@code node.annotations[<key>]}; and, of a network that declares
 * spec.nodeSlices, the node's slice of it: {@code node.slice} (a CIDR), {@code
 * node.slice.rangeStart} and {@code node.slice.rangeEnd} ({@link SliceOfNode}). Text such as {@code
 * "$(FOO)"} that does not start with {@code node.} is not ours and passes through unchanged.
 */
public final class NodeTemplate {

  /** The rule of every problem found here. */
  public static final ConfigRule RULE = Rule.NODE_PLACEHOLDER;

  private enum Rule implements ConfigRule {
    NODE_PLACEHOLDER;

    @Override
    public String id() {
      return "node-placeholder";
    }
  }

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static final String OPEN = "$(node.";
  private static final String ESCAPED_OPEN = "$$(";
  private static final Pattern PLACEHOLDER =
      Pattern.compile("^\\$\\(node\\.(?<value>[A-Za-z0-9.]+)(?:\\[(?<key>[^\\]\\)]+)\\])?\\)$");

  /** Keys whose value plugins read as a string (host-local, bridge, macvlan, ipvlan, routes). */
  private static final Set<String> STRING_KEYS =
      Set.of("subnet", "rangeStart", "rangeEnd", "gateway", "master", "bridge", "dst", "gw");

  /** What a placeholder stands for. */
  enum Value {
    NAME("name", false),
    POD_CIDR("podCIDR", false),
    POD_CIDR_IPV4("podCIDR.ipv4", false),
    POD_CIDR_IPV6("podCIDR.ipv6", false),
    POD_CIDRS("podCIDRs", true),
    HOST_LOCAL_RANGES("hostLocalRanges", true),
    INTERNAL_IP("internalIP", false),
    INTERNAL_IPS("internalIPs", true),
    LABEL("labels", false),
    ANNOTATION("annotations", false),
    SLICE("slice", false),
    SLICE_RANGE_START("slice.rangeStart", false),
    SLICE_RANGE_END("slice.rangeEnd", false);

    final String text;
    final boolean list;

    Value(String text, boolean list) {
      this.text = text;
      this.list = list;
    }

    boolean keyed() {
      return this == LABEL || this == ANNOTATION;
    }

    /** A value of the node's slice of spec.nodeSlices, which the network must declare. */
    boolean ofSlice() {
      return this == SLICE || this == SLICE_RANGE_START || this == SLICE_RANGE_END;
    }

    static Optional<Value> named(String text) {
      for (Value v : values()) {
        if (v.text.equals(text)) {
          return Optional.of(v);
        }
      }
      return Optional.empty();
    }

    static String known() {
      return "node.name, node.podCIDR, node.podCIDR.ipv4, node.podCIDR.ipv6, node.podCIDRs,"
          + " node.hostLocalRanges, node.internalIP, node.internalIPs, node.labels[<key>],"
          + " node.annotations[<key>], node.slice, node.slice.rangeStart, node.slice.rangeEnd";
    }
  }

  /** One well-formed placeholder. */
  record Placeholder(Value value, String key) {
    String text() {
      return "$(node." + value.text + (key == null ? "" : "[" + key + "]") + ")";
    }
  }

  /** The outcome of rendering a template for one node. */
  public sealed interface Result {
    /** Every placeholder had its value. */
    record Rendered(ObjectNode conflist) implements Result {}

    /** The node lacks values; each message names the node, the value and where it is used. */
    record Missing(List<String> messages) implements Result {
      public String message() {
        return String.join("; ", messages);
      }
    }
  }

  private NodeTemplate() {}

  /**
   * Whether {@code conflist} is a template: a string in it holds a placeholder or an escape, so it
   * is rendered per node. The one definition; the others below read text with it.
   */
  public static boolean isTemplate(JsonNode conflist) {
    Deque<JsonNode> todo = new ArrayDeque<>();
    todo.push(conflist);
    while (!todo.isEmpty()) {
      JsonNode n = todo.pop();
      if (n.isTextual() && (n.textValue().contains(OPEN) || n.textValue().contains(ESCAPED_OPEN))) {
        return true;
      }
      n.elements().forEachRemaining(todo::push);
    }
    return false;
  }

  /** Whether a revision's content (its configuration list as rendered) is a template. */
  public static boolean isTemplate(String content) {
    if (content == null) {
      return false;
    }
    try {
      return templateIn(content).isPresent();
    } catch (JsonProcessingException | ClassCastException e) {
      return false;
    }
  }

  /**
   * The template a revision's content is, or empty when the content is the same on every node.
   *
   * @throws JsonProcessingException, ClassCastException when it is not a JSON object (damaged)
   */
  static Optional<ObjectNode> templateIn(String content) throws JsonProcessingException {
    // The operator writes revisions as canonical JSON, which escapes neither '$' nor '(': text
    // without them has no string with them, and need not be parsed.
    if (!content.contains(OPEN) && !content.contains(ESCAPED_OPEN)) {
      return Optional.empty();
    }
    JsonNode tree = MAPPER.readTree(content);
    return isTemplate(tree) ? Optional.of((ObjectNode) tree) : Optional.empty();
  }

  /**
   * Every misuse of a placeholder in {@code conflist}: unknown values, text around a placeholder, a
   * list where a string is read, a placeholder in a plugin's type, a slice value of a network that
   * declares no slices ({@code slicesDeclared}: it has spec.nodeSlices). Paths as the cni
   * validator's.
   */
  public static List<ConfigProblem> problems(ObjectNode conflist, boolean slicesDeclared) {
    List<ConfigProblem> problems = new ArrayList<>();
    Deque<Located> todo = new ArrayDeque<>();
    todo.push(new Located("", null, conflist));
    while (!todo.isEmpty()) {
      Located at = todo.pop();
      JsonNode n = at.node();
      if (n.isTextual()) {
        check(at, slicesDeclared, problems);
      } else if (n.isObject()) {
        Iterator<Map.Entry<String, JsonNode>> fields = n.fields();
        while (fields.hasNext()) {
          Map.Entry<String, JsonNode> f = fields.next();
          todo.push(new Located(child(at.path(), f.getKey()), f.getKey(), f.getValue()));
        }
      } else if (n.isArray()) {
        for (int i = 0; i < n.size(); i++) {
          todo.push(new Located(at.path() + "[" + i + "]", null, n.get(i)));
        }
      }
    }
    problems.sort(java.util.Comparator.comparing(ConfigProblem::path));
    return problems;
  }

  /**
   * {@code conflist} with every placeholder replaced by {@code node}'s value; {@code slice} is the
   * node's slice of this network.
   */
  public static Result render(ObjectNode conflist, NodeValues node, SliceOfNode slice) {
    List<String> missing = new ArrayList<>();
    ObjectNode out = (ObjectNode) substitute(conflist, "", new Values(node, slice), missing);
    return missing.isEmpty() ? new Result.Rendered(out) : new Result.Missing(List.copyOf(missing));
  }

  private record Located(String path, String key, JsonNode node) {}

  /** What placeholders are replaced with for one node and one network. */
  private record Values(NodeValues node, SliceOfNode slice) {}

  private static void check(Located at, boolean slicesDeclared, List<ConfigProblem> problems) {
    String text = at.node().textValue();
    int open = unescapedOpen(text);
    if (open < 0) {
      return;
    }
    Optional<Placeholder> placeholder = parse(text);
    if (open > 0 || placeholder.isEmpty() && !text.endsWith(")")) {
      problems.add(
          problem(
              at,
              "a $(node...) placeholder must be the whole value, with nothing around it; write"
                  + " $$( for a literal $("));
      return;
    }
    if (placeholder.isEmpty()) {
      problems.add(
          problem(at, "unknown placeholder " + text + "; the known values are " + Value.known()));
      return;
    }
    Placeholder p = placeholder.get();
    if ("type".equals(at.key())) {
      problems.add(
          problem(at, "a plugin's type names one binary on every node; it cannot be " + text));
    } else if ("ranges".equals(at.key()) && p.value() != Value.HOST_LOCAL_RANGES) {
      problems.add(
          problem(
              at,
              "ranges is a list of range sets; only $(node.hostLocalRanges) can stand for it, not "
                  + text));
    } else if (STRING_KEYS.contains(at.key()) && p.value().list) {
      problems.add(problem(at, at.key() + " is a string, but " + text + " is a list"));
    } else if (p.value().ofSlice() && !slicesDeclared) {
      problems.add(
          problem(
              at,
              text
                  + " is the node's slice of spec.nodeSlices, which this network does not declare:"
                  + " add spec.nodeSlices (subnet, prefixLength)"));
    }
  }

  private static ConfigProblem problem(Located at, String message) {
    return new ConfigProblem(at.path(), RULE, message);
  }

  /** The index of the first "$(node." not written as "$$(node.", or -1. */
  private static int unescapedOpen(String text) {
    int from = 0;
    while (true) {
      int i = text.indexOf(OPEN, from);
      if (i < 0) {
        return -1;
      }
      if (i == 0 || text.charAt(i - 1) != '$') {
        return i;
      }
      from = i + 1;
    }
  }

  private static Optional<Placeholder> parse(String text) {
    Matcher m = PLACEHOLDER.matcher(text);
    if (!m.matches()) {
      return Optional.empty();
    }
    Optional<Value> value = Value.named(m.group("value"));
    String key = m.group("key");
    if (value.isEmpty() || value.get().keyed() != (key != null)) {
      return Optional.empty();
    }
    return Optional.of(new Placeholder(value.get(), key));
  }

  private static JsonNode substitute(JsonNode n, String path, Values values, List<String> missing) {
    if (n.isTextual()) {
      String text = n.textValue();
      if (unescapedOpen(text) == 0) {
        Placeholder p =
            parse(text)
                .orElseThrow(() -> new IllegalArgumentException("unchecked placeholder " + text));
        return valueOf(p, values)
            .orElseGet(
                () -> {
                  String lacks = lacks(p, values, path);
                  if (!missing.contains(lacks)) {
                    missing.add(lacks);
                  }
                  return n;
                });
      }
      return text.contains(ESCAPED_OPEN) ? TextNode.valueOf(text.replace(ESCAPED_OPEN, "$(")) : n;
    }
    if (n.isObject()) {
      ObjectNode copy = JsonNodeFactory.instance.objectNode();
      n.fields()
          .forEachRemaining(
              f ->
                  copy.set(
                      f.getKey(),
                      substitute(f.getValue(), child(path, f.getKey()), values, missing)));
      return copy;
    }
    if (n.isArray()) {
      ArrayNode copy = JsonNodeFactory.instance.arrayNode();
      for (int i = 0; i < n.size(); i++) {
        copy.add(substitute(n.get(i), path + "[" + i + "]", values, missing));
      }
      return copy;
    }
    return n.deepCopy();
  }

  private static Optional<JsonNode> valueOf(Placeholder p, Values values) {
    JsonNodeFactory json = JsonNodeFactory.instance;
    NodeValues node = values.node();
    Optional<SliceOfNode.Assigned> slice =
        values.slice() instanceof SliceOfNode.Assigned a ? Optional.of(a) : Optional.empty();
    List<String> cidrs = node.podCidrs();
    return switch (p.value()) {
      case NAME -> Optional.of(json.textNode(node.name()));
      case POD_CIDR -> cidrs.stream().findFirst().map(json::textNode);
      case POD_CIDR_IPV4 ->
          cidrs.stream().filter(c -> !NodeValues.isIpv6(c)).findFirst().map(json::textNode);
      case POD_CIDR_IPV6 ->
          cidrs.stream().filter(NodeValues::isIpv6).findFirst().map(json::textNode);
      case POD_CIDRS -> cidrs.isEmpty() ? Optional.empty() : Optional.of(strings(cidrs));
      case HOST_LOCAL_RANGES -> {
        if (cidrs.isEmpty()) {
          yield Optional.empty();
        }
        ArrayNode ranges = json.arrayNode();
        cidrs.forEach(c -> ranges.addArray().addObject().put("subnet", c));
        yield Optional.of(ranges);
      }
      case INTERNAL_IP -> node.internalIps().stream().findFirst().map(json::textNode);
      case INTERNAL_IPS ->
          node.internalIps().isEmpty()
              ? Optional.empty()
              : Optional.of(strings(node.internalIps()));
      case LABEL -> node.label(p.key()).map(json::textNode);
      case ANNOTATION -> node.annotation(p.key()).map(json::textNode);
      case SLICE -> slice.map(s -> json.textNode(s.slice()));
      case SLICE_RANGE_START -> slice.map(s -> json.textNode(s.rangeStart()));
      case SLICE_RANGE_END -> slice.map(s -> json.textNode(s.rangeEnd()));
    };
  }

  /**
   * Why the node lacks {@code p}, and where it is used. A missing slice is said once, without a
   * place: the node has none wherever the network uses it, and gets the network once it has one.
   */
  private static String lacks(Placeholder p, Values values, String path) {
    NodeValues node = values.node();
    if (p.value().ofSlice()) {
      return values.slice() instanceof SliceOfNode.Lacking l
          ? l.messageFor(node.name())
          : "node " + node.name() + " has no slice: the network declares no spec.nodeSlices";
    }
    String what =
        switch (p.value()) {
          case NAME -> "a name";
          case POD_CIDR, POD_CIDRS, HOST_LOCAL_RANGES -> "no spec.podCIDR";
          case POD_CIDR_IPV4 -> "no IPv4 pod CIDR in spec.podCIDRs";
          case POD_CIDR_IPV6 -> "no IPv6 pod CIDR in spec.podCIDRs";
          case INTERNAL_IP, INTERNAL_IPS -> "no InternalIP in status.addresses";
          case LABEL -> "no label " + p.key();
          case ANNOTATION -> "no annotation " + p.key();
          case SLICE, SLICE_RANGE_START, SLICE_RANGE_END ->
              throw new IllegalStateException("a slice value is said above");
        };
    return "node " + node.name() + " has " + what + " (" + p.text() + " at spec." + path + ")";
  }

  private static ArrayNode strings(List<String> values) {
    ArrayNode list = JsonNodeFactory.instance.arrayNode();
    values.forEach(list::add);
    return list;
  }

  private static String child(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }
}
