package dev.cnioperator.runtime.watch;

import io.fabric8.kubernetes.client.informers.ExceptionHandler;

/**
 * When an informer of the product's own objects goes on after a list or watch failed: once it has
 * synced, always, unless what the API server sent cannot be decoded (a CRD newer than the client,
 * which retrying cannot mend); before, never, so that a start against an API server that cannot
 * serve fails at once and says so.
 *
 * <p>fabric8's default stops a synced informer on any {@code WatcherException} that is not "410
 * Gone": a watch that ends on a protocol error or a failed reconnect attempt (both seen as the
 * connection to the API server drops). A stopped informer hears of nothing again; the operator's
 * informer-stopped handler ends the process, which is how JOSDK's own informers behave only for
 * objects they cannot decode. This handler makes an informer of ours behave as JOSDK's do.
 */
public final class InformerRetry implements ExceptionHandler {
  public static final InformerRetry AFTER_START = new InformerRetry();

  private InformerRetry() {}

  @Override
  public boolean retryAfterException(boolean isStarted, Throwable t) {
    return isStarted && !ExceptionHandler.isDeserializationException(t);
  }
}
