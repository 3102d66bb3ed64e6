package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every malformed plugin output gives a CniException with the right code, naming the field. */
class MalformedResultTest {

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          not json                                                             | INVALID_PLUGIN_OUTPUT | plugin output is not valid JSON
          ``                                                                   | INVALID_PLUGIN_OUTPUT | plugin output is empty
          [1,2]                                                                | INVALID_PLUGIN_OUTPUT | plugin output is not a JSON object
          "1.0.0"                                                              | INVALID_PLUGIN_OUTPUT | plugin output is not a JSON object
          {"cniVersion":"1.0.0"} {"cniVersion":"1.0.0"}                        | INVALID_PLUGIN_OUTPUT | plugin output is not valid JSON
          {"cniVersion":1}                                                     | DECODING_FAILURE      | cniVersion must be a string
          {"cniVersion":"9.9.9"}                                               | INCOMPATIBLE_VERSION  | unsupported CNI result version "9.9.9"
          {"cniVersion":"1.0.0","ips":{}}                                      | DECODING_FAILURE      | ips must be an array
          {"cniVersion":"1.0.0","ips":[null]}                                  | DECODING_FAILURE      | ips[0] must be a JSON object
          {"cniVersion":"1.0.0","ips":[{"gateway":"10.200.0.1"}]}              | DECODING_FAILURE      | ips[0].address is missing
          {"cniVersion":"1.0.0","ips":[{"address":"10.200.0.5"}]}              | DECODING_FAILURE      | ips[0].address is not a CIDR
          {"cniVersion":"1.0.0","ips":[{"address":"10.200.0.300/24"}]}         | DECODING_FAILURE      | ips[0].address is not a CIDR
          {"cniVersion":"1.0.0","ips":[{"address":"10.200.0.5/33"}]}           | DECODING_FAILURE      | ips[0].address is not a CIDR
          {"cniVersion":"1.0.0","ips":[{"address":"10.200.00.5/24"}]}          | DECODING_FAILURE      | ips[0].address is not a CIDR
          {"cniVersion":"1.0.0","ips":[{"address":"fd00::1::2/64"}]}           | DECODING_FAILURE      | ips[0].address is not a CIDR
          {"cniVersion":"1.0.0","ips":[{"address":"fe80::1%eth0/64"}]}         | DECODING_FAILURE      | ips[0].address is not a CIDR
          {"cniVersion":"1.0.0","ips":[{"address":"fd00::/129"}]}              | DECODING_FAILURE      | ips[0].address is not a CIDR
          {"cniVersion":"1.0.0","ips":[{"address":5}]}                         | DECODING_FAILURE      | ips[0].address must be a string
          {"cniVersion":"1.0.0","ips":[{"address":"10.200.0.5/24","gateway":"gw"}]} | DECODING_FAILURE | ips[0].gateway is not an IP address
          {"cniVersion":"1.0.0","ips":[{"address":"10.200.0.5/24","interface":-1}]} | DECODING_FAILURE | ips[0].interface must not be negative
          {"cniVersion":"1.0.0","ips":[{"address":"10.200.0.5/24","interface":"0"}]} | DECODING_FAILURE | ips[0].interface must be an integer
          {"cniVersion":"1.0.0","ips":[{"address":"10.200.0.5/24","interface":1.5}]} | DECODING_FAILURE | ips[0].interface must be an integer
          {"cniVersion":"1.0.0","interfaces":[{"name":7}]}                     | DECODING_FAILURE      | interfaces[0].name must be a string
          {"cniVersion":"1.1.0","interfaces":[{"name":"eth0","mtu":99999999999}]} | DECODING_FAILURE   | interfaces[0].mtu is out of range
          {"cniVersion":"1.0.0","interfaces":"eth0"}                           | DECODING_FAILURE      | interfaces must be an array
          {"cniVersion":"1.0.0","routes":[{"gw":"10.200.0.1"}]}                | DECODING_FAILURE      | routes[0].dst is missing
          {"cniVersion":"1.0.0","routes":[{"dst":"default"}]}                  | DECODING_FAILURE      | routes[0].dst is not a CIDR
          {"cniVersion":"1.1.0","routes":[{"dst":"0.0.0.0/0","table":"main"}]} | DECODING_FAILURE      | routes[0].table must be an integer
          {"cniVersion":"1.0.0","dns":[]}                                      | DECODING_FAILURE      | dns must be a JSON object
          {"cniVersion":"1.0.0","dns":{"nameservers":"10.200.0.1"}}            | DECODING_FAILURE      | dns.nameservers must be an array
          {"cniVersion":"1.0.0","dns":{"search":[1]}}                          | DECODING_FAILURE      | dns.search[0] must be a string
          {"cniVersion":"0.4.0","ips":[{"version":"6","address":"10.200.0.5/24"}]} | DECODING_FAILURE  | ips[0].version is "6" but address 10.200.0.5/24 is IPv4
          {"cniVersion":"0.3.1","ips":[{"version":4,"address":"10.200.0.5/24"}]} | DECODING_FAILURE    | ips[0].version must be a string
          {"cniVersion":"0.2.0","ip4":"10.200.0.5/24"}                         | DECODING_FAILURE      | ip4 must be a JSON object
          {"cniVersion":"0.2.0","ip4":{"ip":"x"}}                              | DECODING_FAILURE      | ip4.ip is not a CIDR
          {"cniVersion":"0.2.0","ip4":{"gateway":"10.200.0.1"}}                | DECODING_FAILURE      | ip4.ip is missing
          {"cniVersion":"0.2.0","ip6":{"ip":"fd00::1/64","routes":[{"dst":"::/0","gw":"fd00::zz"}]}} | DECODING_FAILURE | ip6.routes[0].gw is not an IP address
          """)
  void malformedOutputIsATypedErrorNamingTheField(String json, CniErrorCode code, String message) {
    Throwable thrown =
        catchThrowable(
            () -> Results.parse(json.getBytes(StandardCharsets.UTF_8), CniVersion.V1_0_0));

    assertThat(thrown).isExactlyInstanceOf(CniException.class);
    CniException e = (CniException) thrown;
    assertThat(e.code()).isEqualTo(code.code());
    assertThat(e.msg()).contains(message);
  }
}
