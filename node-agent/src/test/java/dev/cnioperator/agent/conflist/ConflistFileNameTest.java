package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConflistFileNameTest {

  @Test
  void defaultNetworkIsTheFirstRuntimeReadableFileInByteOrder() {
    List<String> names =
        List.of(
            "99-z.conflist",
            "10-b.conf",
            "05-a.json",
            ".04-x.conflist.cni-node-agent-1.tmp",
            "01-notes.txt",
            "README");
    assertThat(ConflistFileName.defaultNetworkFile(names)).contains("05-a.json");
  }

  @Test
  void upperCaseSortsBeforeLowerCaseAsInGo() {
    assertThat(ConflistFileName.defaultNetworkFile(List.of("a.conflist", "B.conflist")))
        .contains("B.conflist");
  }

  @Test
  void noRuntimeReadableFileMeansNoDefaultNetwork() {
    assertThat(ConflistFileName.defaultNetworkFile(List.of("x.tmp"))).isEmpty();
  }

  @Test
  void onlyPlainConflistNamesAreAccepted() {
    assertThat(ConflistFileName.problem("50-dbnet.conflist")).isEmpty();
    assertThat(ConflistFileName.problem("a/b.conflist")).isPresent();
    assertThat(ConflistFileName.problem(".hidden.conflist")).isPresent();
    assertThat(ConflistFileName.problem("50-dbnet.conf")).get().asString().contains(".conflist");
    assertThat(ConflistFileName.problem("")).isPresent();
  }
}
