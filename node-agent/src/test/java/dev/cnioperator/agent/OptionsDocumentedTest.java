package dev.cnioperator.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.testkit.OptionDocs;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class OptionsDocumentedTest {

  @Test
  void everyOptionOfEveryCommandSaysWhatItIsItsDefaultAndItsEnvironmentVariable() {
    assertThat(OptionDocs.problems(new CommandLine(new Main()))).isEmpty();
  }

  @Test
  void runHelpShowsTheDefaultsOfTheHostPaths() {
    String help = new CommandLine(new RunCommand()).getUsageMessage().replaceAll("\\s+", " ");
    assertThat(help)
        .contains("CNI_BIN_DIR; default: /opt/cni/bin")
        .contains("CNI_CONF_DIR; default: /etc/cni/net.d")
        .contains("AGENT_MULTUS_CONF_DIR; default: /etc/cni/multus/net.d")
        .contains("AGENT_MULTUS_CACHE_DIR; default: /var/lib/cni/multus")
        .contains("AGENT_RESYNC_SECONDS; default: 60")
        .contains("AGENT_PLUGIN_TIMEOUT_SECONDS; default: 30");
  }

  @Test
  void runHelpSaysHostLocalsStoreDoesNotFollowTheCacheDir() {
    String help = new CommandLine(new RunCommand()).getUsageMessage().replaceAll("\\s+", " ");
    assertThat(help)
        .contains("else host-local's own /var/lib/cni/networks, whatever this directory is")
        .doesNotContain("<cache-dir>/networks");
  }
}
