package dev.cnioperator.cri.plugin;

import java.util.List;
import java.util.Map;

/**
 * The driver's side of the kubelet's {@code DRAPlugin} calls, served by {@link
 * KubeletPluginServer}, in plain Java types.
 *
 * <p>The kubelet calls {@code prepare} before it starts the first container of a pod that uses
 * claims allocated (at least partly) to this driver, with the pod's claims batched, and {@code
 * unprepare} once no pod on the node uses a claim any more; both again, from its retries and from
 * its reconcile loop (every 60 s) and after restarts, so <b>both must be idempotent</b>. Calls for
 * different pods may run at the same time: an implementation must be thread-safe. The kubelet gives
 * up on a call after 45 s, and then treats every claim of it as failed and retries.
 *
 * <p>Results are keyed by {@link ClaimRef#uid()}. A claim missing from the result, or with a {@code
 * null} result, is answered as failed, so the kubelet asks again. An exception thrown for a batch
 * of several claims makes the server ask again one claim at a time, so that the exception is the
 * error of the claim that caused it only (another reason to be idempotent); an exception for a
 * single claim is that claim's error. The kubelet never sees a failed RPC.
 */
public interface DraHandler {
  /**
   * Makes the claims ready for their pods (for example configures the allocated devices) and tells
   * the kubelet which devices each claim got.
   *
   * @param claims the claims, each allocated (at least partly) to this driver on this node
   * @return by claim uid, the devices or the error of each claim
   */
  Map<String, PrepareResult> prepare(List<ClaimRef> claims) throws Exception;

  /**
   * Undoes {@link #prepare} for the claims; a claim that is not (or no longer) prepared is a
   * success.
   *
   * @param claims the claims whose last pod on this node is gone
   * @return by claim uid, {@code null} (or an empty string) when the claim was unprepared, else why
   *     not; use a map that allows null values, or leave successes as empty strings
   */
  Map<String, String> unprepare(List<ClaimRef> claims) throws Exception;
}
