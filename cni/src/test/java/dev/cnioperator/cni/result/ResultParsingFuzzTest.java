package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Property: whatever a plugin prints, parsing it (and converting and writing what parsed) fails
 * only with CniException. Plain JUnit with a seeded generator of result-like JSON, mutations of the
 * conversion examples and raw bytes, bounded to about two seconds.
 */
class ResultParsingFuzzTest {

  private static final long SEED = 0x5EED_C0DEL;
  private static final long BUDGET_NANOS = 2_000_000_000L;
  private static final int MIN_RUNS = 500;
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static final String[] KEYS = {
    "cniVersion",
    "interfaces",
    "ips",
    "routes",
    "dns",
    "ip4",
    "ip6",
    "ip",
    "address",
    "gateway",
    "interface",
    "version",
    "name",
    "mac",
    "mtu",
    "sandbox",
    "socketPath",
    "pciID",
    "dst",
    "gw",
    "advmss",
    "priority",
    "table",
    "scope",
    "nameservers",
    "domain",
    "search",
    "options",
    "supportedVersions",
    "code",
    "msg",
    "details",
    "x-unknown"
  };
  private static final String[] TEXTS = {
    "",
    "1.1.0",
    "1.0.0",
    "0.4.0",
    "0.3.1",
    "0.3.0",
    "0.2.0",
    "0.1.0",
    "9.9.9",
    "1.0",
    "4",
    "6",
    "10.200.0.5/24",
    "10.200.0.5",
    "10.200.0.1",
    "fd00:200::5/64",
    "fd00:200::1",
    "::/0",
    "0.0.0.0/0",
    "::ffff:10.200.0.5/120",
    "10.200.0.300/24",
    "fd00::1::2/64",
    "/24",
    "a/b",
    "::",
    "eth0",
    "00:11:22:33:44:55",
    "\u0000",
    "\uD800",
    "ä/ß",
    "1e3"
  };

  @Test
  void parseThrowsNothingButCniException() {
    Random random = new Random(SEED);
    List<JsonNode> seeds = ResultConversionTest.examples().stream().map(e -> e.input()).toList();
    long deadline = System.nanoTime() + BUDGET_NANOS;
    int runs = 0;
    int parsed = 0;
    // At least MIN_RUNS even on a loaded machine; beyond that, as many as the budget allows.
    while ((runs < MIN_RUNS || System.nanoTime() < deadline) && runs < 200_000) {
      byte[] input = nextInput(random, seeds);
      runs++;
      if (exercise(input)) {
        parsed++;
      }
    }
    System.out.printf("fuzz seed=%x runs=%d parsed=%d%n", SEED, runs, parsed);
    // The generator must reach the decoder's happy paths too, not only its first checks.
    assertThat(parsed).isGreaterThan(runs / 50);
  }

  /** Runs every entry point on {@code input}; true when it parsed as a result. */
  private static boolean exercise(byte[] input) {
    PluginErrors.decode(input);
    try {
      Results.parseVersion(input);
    } catch (CniException expected) {
      // only CniException may escape
    }
    Result result;
    try {
      result = Results.parse(input, CniVersion.V1_0_0);
    } catch (CniException expected) {
      return false;
    }
    Results.parse(result.toBytes(), null);
    IpamResult.from(result).toJson();
    for (CniVersion target : CniVersion.KNOWN) {
      try {
        Result converted = result.convertTo(target);
        Results.parse(converted.toBytes(), null);
      } catch (CniException expected) {
        // 0.1.0/0.2.0 without IP addresses
      }
    }
    return true;
  }

  private static byte[] nextInput(Random random, List<JsonNode> seeds) {
    try {
      return switch (random.nextInt(6)) {
        case 0 -> MAPPER.writeValueAsBytes(randomValue(random, 0));
        case 1, 2 ->
            MAPPER.writeValueAsBytes(mutate(seeds.get(random.nextInt(seeds.size())), random));
        case 3 ->
            truncate(MAPPER.writeValueAsBytes(seeds.get(random.nextInt(seeds.size()))), random);
        case 4 -> randomBytes(random);
        default -> MAPPER.writeValueAsBytes(randomObject(random, 0));
      };
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A copy of {@code seed} with a few subtrees replaced, removed or added. */
  private static JsonNode mutate(JsonNode seed, Random random) {
    JsonNode copy = seed.deepCopy();
    int edits = 1 + random.nextInt(3);
    for (int i = 0; i < edits; i++) {
      List<JsonNode> containers = new ArrayList<>();
      collectContainers(copy, containers);
      JsonNode target = containers.get(random.nextInt(containers.size()));
      if (target instanceof ObjectNode o) {
        String key =
            o.size() > 0 && random.nextBoolean()
                ? List.copyOf(iterable(o)).get(random.nextInt(o.size()))
                : KEYS[random.nextInt(KEYS.length)];
        if (random.nextInt(4) == 0) {
          o.remove(key);
        } else {
          o.set(key, randomValue(random, 2));
        }
      } else if (target instanceof ArrayNode a) {
        if (a.size() > 0 && random.nextBoolean()) {
          a.set(random.nextInt(a.size()), randomValue(random, 2));
        } else {
          a.add(randomValue(random, 2));
        }
      }
    }
    return copy;
  }

  private static List<String> iterable(ObjectNode o) {
    List<String> names = new ArrayList<>();
    o.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static void collectContainers(JsonNode node, List<JsonNode> out) {
    if (node.isContainerNode()) {
      out.add(node);
      node.forEach(child -> collectContainers(child, out));
    }
  }

  private static JsonNode randomValue(Random random, int depth) {
    int kind = random.nextInt(depth > 4 ? 6 : 8);
    return switch (kind) {
      case 0 -> NODES.nullNode();
      case 1 -> NODES.booleanNode(random.nextBoolean());
      case 2 ->
          switch (random.nextInt(5)) {
            case 0 -> NODES.numberNode(random.nextInt(3) - 1);
            case 1 -> NODES.numberNode(random.nextLong());
            case 2 -> NODES.numberNode(random.nextDouble() * 2000);
            case 3 -> NODES.numberNode(new java.math.BigInteger("123456789012345678901234567890"));
            default -> NODES.numberNode(random.nextInt(70000));
          };
      case 3, 4, 5 -> NODES.textNode(TEXTS[random.nextInt(TEXTS.length)]);
      case 6 -> randomObject(random, depth + 1);
      default -> {
        ArrayNode a = NODES.arrayNode();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          a.add(randomValue(random, depth + 1));
        }
        yield a;
      }
    };
  }

  private static ObjectNode randomObject(Random random, int depth) {
    ObjectNode o = NODES.objectNode();
    int n = random.nextInt(6);
    for (int i = 0; i < n; i++) {
      o.set(KEYS[random.nextInt(KEYS.length)], randomValue(random, depth + 1));
    }
    return o;
  }

  private static byte[] truncate(byte[] json, Random random) {
    return java.util.Arrays.copyOf(json, random.nextInt(json.length + 1));
  }

  private static byte[] randomBytes(Random random) {
    byte[] bytes = new byte[random.nextInt(64)];
    random.nextBytes(bytes);
    if (random.nextBoolean() && bytes.length > 0) {
      bytes[0] = '{';
    }
    return random.nextInt(8) == 0 ? "null".getBytes(StandardCharsets.UTF_8) : bytes;
  }
}
