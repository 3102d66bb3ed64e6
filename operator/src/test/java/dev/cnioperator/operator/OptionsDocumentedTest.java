package dev.cnioperator.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.testkit.OptionDocs;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class OptionsDocumentedTest {

  @Test
  void everyOptionOfEveryCommandSaysWhatItIsItsDefaultAndItsEnvironmentVariable() {
    assertThat(OptionDocs.problems(new CommandLine(new Main()))).isEmpty();
  }
}
