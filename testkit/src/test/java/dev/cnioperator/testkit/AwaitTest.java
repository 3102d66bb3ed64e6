package dev.cnioperator.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process the test kit starts (etcd, kube-apiserver, containerd, a kubelet, the registry) that
 * does not come up says why, with the end of its log.
 */
class AwaitTest {
  @TempDir Path dir;

  @Test
  void aServerThatExitsFailsAtOnceWithItsStatusAndTheEndOfItsLog() throws Exception {
    Path log = dir.resolve("etcd.log");
    Process p =
        logged(log, "for i in $(seq 1 60); do echo line $i; done; echo 'bind: in use'; exit 3");

    assertThatThrownBy(() -> Await.serving("etcd", p, log, () -> false, Duration.ofMinutes(1)))
        .hasMessageContaining("etcd exited with status 3 before it served")
        .hasMessageContaining(log.toString())
        .hasMessageContaining("line 60\nbind: in use")
        .hasMessageNotContaining("line 20\n");
  }

  @Test
  void aServerThatRunsButNeverServesFailsAfterTheTimeoutWithTheEndOfItsLog() throws Exception {
    Path log = dir.resolve("kube-apiserver.log");
    Process p = logged(log, "echo 'waiting for etcd'; exec sleep 60");
    try {
      assertThatThrownBy(
              () -> Await.serving("kube-apiserver", p, log, () -> false, Duration.ofMillis(500)))
          .hasMessageContaining("kube-apiserver did not serve within 500 ms (still running)")
          .hasMessageContaining("waiting for etcd");
    } finally {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aServerThatServesPasses() throws Exception {
    Path log = dir.resolve("ok.log");
    Process p = logged(log, "echo started; exec sleep 60");
    try {
      int[] polls = {0};
      Await.serving("ok", p, log, () -> ++polls[0] == 3, Duration.ofMinutes(1));
      assertThat(polls[0]).isEqualTo(3);
    } finally {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static Process logged(Path log, String script) throws IOException {
    Process p =
        new ProcessBuilder("sh", "-c", script)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    // The log is written before the check reads it: wait until the script's first line is there.
    await("the first line in " + log)
        .atMost(Duration.ofSeconds(10))
        .until(() -> Files.size(log) > 0);
    return p;
  }
}
