package dev.cnioperator.runtime.health;

import com.sun.management.OperatingSystemMXBean;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmHeapPressureMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import java.lang.management.ManagementFactory;

/**
 * Micrometer's meters of the JVM and the process, the same in the operator and the agent: memory
 * (and what is left in use after GC), GC pauses, threads, classes, CPU, open files, uptime and the
 * JVM's version. Close it with the registry: the GC meters listen to the JVM's GC notifications.
 *
 * <p>The process's CPU time is counted in seconds, {@code process_cpu_seconds_total} as
 * Prometheus's own clients name it, in place of Micrometer's {@code process_cpu_time_ns_total}:
 * Prometheus wants base units. Put {@link #BASE_UNITS} on the registry before its first meter (a
 * filter applies only to meters registered after it); the meters themselves may be bound later.
 */
public final class JvmMeters implements AutoCloseable {
  /**
   * Leaves out Micrometer's CPU time in nanoseconds; {@code process_cpu_seconds_total} replaces it.
   */
  public static final MeterFilter BASE_UNITS =
      MeterFilter.deny(id -> id.getName().equals("process.cpu.time"));

  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final JvmHeapPressureMetrics heapPressure = new JvmHeapPressureMetrics();

  /** Binds the meters to {@code registry}, which should already have {@link #BASE_UNITS}. */
  public JvmMeters(MeterRegistry registry) {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
        && os.getProcessCpuTime() >= 0) {
      FunctionCounter.builder("process.cpu", os, o -> o.getProcessCpuTime() / 1e9)
          .baseUnit("seconds")
          .description("CPU time the process used")
          .register(registry);
    }
    new JvmMemoryMetrics().bindTo(registry);
    gc.bindTo(registry);
    heapPressure.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmInfoMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }

  @Override
  public void close() {
    gc.close();
    heapPressure.close();
  }
}
