package dev.cnioperator.runtime.watch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParseException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.ProtocolException;
import org.junit.jupiter.api.Test;

class InformerRetryTest {
  private final InformerRetry retry = InformerRetry.AFTER_START;

  @Test
  void aSyncedInformerGoesOnAfterTheWatchEndsOnAConnectionFault() {
    // What fabric8's watch manager closes a watch with when the connection breaks badly: its own
    // default handler stops a synced informer on these, for good.
    assertThat(
            retry.retryAfterException(
                true,
                new WatcherException(
                    "Could not process Watch response", new ProtocolException("truncated frame"))))
        .isTrue();
    assertThat(
            retry.retryAfterException(
                true,
                new WatcherException(
                    "Unhandled exception in reconnect attempt",
                    new IllegalStateException("closed"))))
        .isTrue();
    assertThat(retry.retryAfterException(true, new KubernetesClientException("list failed")))
        .isTrue();
  }

  @Test
  void itStopsOnObjectsItCannotDecodeAndOnAFailedStart() {
    assertThat(
            retry.retryAfterException(
                true,
                new WatcherException(
                    "Couldn't deserialize watch event",
                    new JsonParseException(null, "unexpected token"))))
        .isFalse();
    assertThat(retry.retryAfterException(true, new ClassCastException("not a CniNode"))).isFalse();
    assertThat(retry.retryAfterException(false, new KubernetesClientException("unreachable")))
        .isFalse();
  }
}
