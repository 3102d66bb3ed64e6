package dev.cnioperator.cni.io;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CniJsonTest {

  @ParameterizedTest(name = "{0} is written {1}")
  @CsvSource({
    "1.0, 1.0",
    "0.000, 0.000",
    "-12.5, -12.5",
    "1e1, 1E+1",
    "15e2, 1.5E+3",
    "1e-7, 1E-7",
    "1e400, 1E+400",
    "0.10000000000000000001, 0.10000000000000000001",
    // Scale 0: plain digits would read back as an integer.
    "1e00, 1E0",
    "-0e0, 0E0",
    "123456789012345678901234567890e0, 123456789012345678901234567890E0",
    // toString would move the exponent past the int range, where it no longer reads.
    "10e2147483647, 10E2147483647",
    "120e2147483646, 120E2147483646",
    "1.2e2147483646, 1.2E+2147483646",
    "12e-2147483647, 1.2E-2147483646",
    "0e2147483647, 0E+2147483647"
  })
  void aDecimalIsWrittenSoThatItReadsBackAsTheSameDecimal(String read, String written)
      throws Exception {
    JsonNode node = CniJson.EXACT_READER.readTree("[" + read + "]");
    assertThat(node.get(0).isBigDecimal()).as("read as a decimal").isTrue();

    String text = CniJson.MAPPER.writeValueAsString(node);

    assertThat(text).isEqualTo("[" + written + "]");
    assertThat(CniJson.EXACT_READER.readTree(text)).isEqualTo(node);
    assertThat(CniJson.PRETTY_WRITER.writeValueAsString(node)).contains(written);
  }
}
