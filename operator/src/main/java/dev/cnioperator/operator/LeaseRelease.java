package dev.cnioperator.operator;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.ZonedDateTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives up the leader-election Lease on a graceful stop, as client-go's {@code ReleaseOnCancel}
 * does: no holder, a one-second duration. A standby takes a Lease without a holder at its next look
 * ({@code retryPeriod}), instead of waiting out {@code leaseDuration} of a leader that is gone.
 * JOSDK cancels its elector on stop without releasing (it configures fabric8's with {@code
 * releaseOnCancel=false} so that losing the Lease always calls back), hence this.
 */
final class LeaseRelease {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseRelease.class);
  private static final int ATTEMPTS = 3;

  private LeaseRelease() {}

  /**
   * Releases the Lease when {@code identity} holds it; a Lease someone else holds is left alone.
   */
  static void release(
      KubernetesClient client, String namespace, String name, String identity, Clock clock) {
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        Lease lease = client.leases().inNamespace(namespace).withName(name).get();
        if (lease == null
            || lease.getSpec() == null
            || !identity.equals(lease.getSpec().getHolderIdentity())) {
          return;
        }
        ZonedDateTime now = ZonedDateTime.now(clock);
        lease.getSpec().setHolderIdentity(null);
        lease.getSpec().setLeaseDurationSeconds(1);
        lease.getSpec().setAcquireTime(now);
        lease.getSpec().setRenewTime(now);
        // The object's resourceVersion makes this a compare-and-swap: a renewal that raced it wins
        // and the next attempt reads it.
        client.leases().inNamespace(namespace).resource(lease).update();
        LOG.info("event=lease-released lease={}/{} identity={}", namespace, name, identity);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          LOG.warn(
              "event=lease-not-released lease={}/{} identity={} error=\"{}\"",
              namespace,
              name,
              identity,
              e.getMessage());
          return;
        }
      }
    }
  }
}
