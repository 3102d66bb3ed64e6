package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import dev.cnioperator.cni.result.Result;
import dev.cnioperator.cni.result.Results;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: any bytes as a plugin's ADD output (after a first byte that picks the request's
 * version, or none as for a cached result), then converted to every known version. Only {@link
 * CniException} may escape; what converts must be written and read back at its new version.
 */
class ResultFuzzTest {
  /** The request versions a result is read under: every known one, or none (a cached result). */
  private static final List<CniVersion> EXPECTED = expected();

  /** Each example output, read as a request of the newest version would read it. */
  static Stream<byte[]> seeds() {
    return FuzzSeeds.results().map(ResultFuzzTest::withVersionByte);
  }

  @MethodSource("seeds")
  @DictionaryEntries({
    "\"cniVersion\"",
    "\"interfaces\"",
    "\"ips\"",
    "\"routes\"",
    "\"dns\"",
    "\"ip4\"",
    "\"ip6\"",
    "\"address\"",
    "\"gateway\"",
    "\"interface\"",
    "\"version\"",
    "\"mac\"",
    "\"sandbox\"",
    "\"dst\"",
    "\"gw\"",
    "\"mtu\"",
    "\"table\"",
    "\"scope\"",
    "\"priority\"",
    "\"advmss\"",
    "\"nameservers\"",
    "\"1.1.0\"",
    "\"1.0.0\"",
    "\"0.4.0\"",
    "\"0.3.1\"",
    "\"0.2.0\"",
    "\"10.200.0.5/24\"",
    "\"fd00::5/64\"",
    "\"0.0.0.0/0\"",
    "\"4\"",
    "\"6\"",
    "::ffff:",
    "\"::/0\"",
    "%eth0",
    "/128",
    "\"255.255.255.255/32\""
  })
  @FuzzTest
  void parseAndConvert(byte[] input) {
    if (input.length == 0) {
      return;
    }
    CniVersion expected = EXPECTED.get(Byte.toUnsignedInt(input[0]) % EXPECTED.size());
    byte[] output = Arrays.copyOfRange(input, 1, input.length);
    Result result;
    try {
      result = Results.parse(output, expected);
    } catch (CniException refused) {
      assertThat(refused.code())
          .isIn(
              CniErrorCode.INVALID_PLUGIN_OUTPUT.code(),
              CniErrorCode.DECODING_FAILURE.code(),
              CniErrorCode.INCOMPATIBLE_VERSION.code());
      return;
    }
    readsTypedView(result);
    result.toBytes();
    result.toCanonicalJson();
    for (CniVersion target : CniVersion.KNOWN) {
      Result converted;
      try {
        converted = result.convertTo(target);
      } catch (CniException refused) {
        assertThat(refused.code()).isEqualTo(CniErrorCode.INCOMPATIBLE_VERSION.code());
        continue;
      }
      assertThat(converted.cniVersion()).isEqualTo(target);
      readsTypedView(converted);
      Result reread = Results.parse(converted.toBytes(), target);
      assertThat(reread.cniVersion()).isEqualTo(target);
    }
  }

  private static void readsTypedView(Result result) {
    result.interfaces();
    result.ips();
    result.routes();
    result.dns();
  }

  private static List<CniVersion> expected() {
    List<CniVersion> versions = new ArrayList<>(CniVersion.KNOWN);
    versions.add(null);
    return versions;
  }

  /** The first byte of an input picks the request version; the rest is the output. */
  private static byte[] withVersionByte(byte[] output) {
    byte[] seed = new byte[output.length + 1];
    seed[0] = (byte) (CniVersion.KNOWN.size() - 1);
    System.arraycopy(output, 0, seed, 1, output.length);
    return seed;
  }
}
