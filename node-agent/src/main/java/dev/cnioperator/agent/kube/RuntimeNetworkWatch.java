package dev.cnioperator.agent.kube;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.v1alpha1.RuntimeNetwork;
import dev.cnioperator.cri.CriException;
import dev.cnioperator.cri.RuntimeCondition;
import dev.cnioperator.cri.RuntimeStatus;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the runtime over CRI {@code Status} whether its pod network is ready, every period, and asks
 * for a status write only when the answer changed (the runtime reloads its CNI configuration on its
 * own time, after the agent wrote a file, so a pass alone would see the change late).
 */
public final class RuntimeNetworkWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RuntimeNetworkWatch.class);

  private final CriConnection cri;
  private volatile Runnable onChange = () -> {};
  private final AtomicReference<RuntimeNetwork> latest = new AtomicReference<>();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "runtime-watch"));

  public RuntimeNetworkWatch(CriConnection cri) {
    this.cri = cri;
  }

  /** Asks now and then every {@code period}; {@code onChange} is told of every changed answer. */
  public void start(Duration period, Runnable onChange) {
    this.onChange = onChange;
    timer.scheduleWithFixedDelay(this::poll, 0, period.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The last answer without a transition time (the status builder keeps that), null before one. */
  public RuntimeNetwork latest() {
    return latest.get();
  }

  void poll() {
    RuntimeNetwork now = ask();
    RuntimeNetwork before = latest.getAndSet(now);
    if (!Objects.equals(before, now)) {
      LOG.info(
          "event=runtime-network socket={} networkReady={} reason={} message=\"{}\"",
          cri.socket(),
          now.getNetworkReady(),
          now.getReason(),
          now.getMessage());
      onChange.run();
    }
  }

  private RuntimeNetwork ask() {
    RuntimeNetwork r = new RuntimeNetwork().setEndpoint(cri.socket().toString());
    try {
      RuntimeStatus status = cri.client().status();
      RuntimeCondition c = status.networkReady();
      Optional<LoadedCniConfig> loaded = LoadedCniConfig.from(status.info());
      // containerd's condition says only "cni plugin not initialized"; its load status names the
      // file it could not load and why.
      String message =
          loaded.map(LoadedCniConfig::loadError).filter(e -> !c.status()).orElse(c.message());
      return r.setNetworkReady(c.status())
          .setReason(emptyToNull(c.reason()))
          .setMessage(emptyToNull(message))
          .setLoadedNetwork(loaded.map(LoadedCniConfig::network).orElse(null))
          .setLoadedSha256(loaded.map(LoadedCniConfig::sha256).orElse(null))
          .setConfDir(loaded.map(LoadedCniConfig::confDir).orElse(null));
    } catch (CriException e) {
      return r.setNetworkReady(false)
          .setReason(ConditionReason.RUNTIME_UNREACHABLE.wire())
          .setMessage(e.getMessage());
    }
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
