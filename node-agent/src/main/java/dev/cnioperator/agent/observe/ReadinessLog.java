package dev.cnioperator.agent.observe;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The agent's readiness as asked by /readyz, logged once on every change of the answer. */
public final class ReadinessLog implements Supplier<Optional<String>> {
  private static final Logger LOG = LoggerFactory.getLogger(ReadinessLog.class);

  private final Supplier<Optional<String>> notReady;
  private Optional<String> last;

  public ReadinessLog(Supplier<Optional<String>> notReady) {
    this.notReady = notReady;
  }

  @Override
  public synchronized Optional<String> get() {
    Optional<String> now = notReady.get();
    if (!Objects.equals(now, last)) {
      if (now.isEmpty()) {
        LOG.info("event=agent-ready");
      } else {
        LOG.info("event=agent-not-ready reason=\"{}\"", now.get());
      }
      last = now;
    }
    return now;
  }
}
