package dev.cnioperator.runtime.client;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A deadline the caller enforces on a blocking API call, which ends it with a {@link
 * KubernetesClientException} when the call has not answered in time.
 *
 * <p>fabric8's blocking calls wait on their response with an unbounded {@code Future.get()} and
 * leave the deadline to the HTTP client, whose request timeout ends once the response headers are
 * in: a body that stops half way, or a retry whose second attempt fails before it is sent, leaves
 * the caller parked for good (fabric8io/kubernetes-client#4663, #6909, #8105). For the node agent
 * that is its node's only pass thread, seen parked for eight minutes in a 1,000-node benchmark,
 * with the node's files never again brought up to date. The call runs on a thread of its own; on
 * the deadline that thread is interrupted, which fabric8 turns into an end of the wait.
 */
public final class CallDeadline {
  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ExecutorService CALLS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "api-call-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  private final Duration limit;

  public CallDeadline(Duration limit) {
    if (limit.isNegative() || limit.isZero()) {
      throw new IllegalArgumentException("an API call deadline must be positive, not " + limit);
    }
    this.limit = limit;
  }

  public Duration limit() {
    return limit;
  }

  /**
   * The call's answer, or its own exception as it threw it.
   *
   * @param what what the call does, for the error ("read CniNode node-1")
   * @throws KubernetesClientException when the call threw one, or had no answer within the limit,
   *     or the caller was interrupted while waiting (its interrupt flag is set again)
   */
  public <T> T call(String what, Supplier<T> call) {
    Future<T> running = CALLS.submit(call::get);
    try {
      return running.get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      running.cancel(true);
      throw new KubernetesClientException(
          what + ": no answer from the API server within " + shown(limit), e);
    } catch (InterruptedException e) {
      running.cancel(true);
      Thread.currentThread().interrupt();
      throw new KubernetesClientException(what + ": interrupted while waiting for an answer", e);
    } catch (CancellationException e) {
      throw new KubernetesClientException(what + ": cancelled", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new KubernetesClientException(what + ": " + e.getCause(), e.getCause());
    }
  }

  private static String shown(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  /** {@link #call} for a call that answers nothing. */
  public void run(String what, Runnable call) {
    call(
        what,
        () -> {
          call.run();
          return null;
        });
  }
}
