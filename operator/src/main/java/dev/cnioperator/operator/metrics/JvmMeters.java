package dev.cnioperator.operator.metrics;

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
 * Micrometer's meters of the JVM and the process, bound once per process: memory (and what is left
 * in use after GC), GC pauses, threads, classes, CPU, open files, uptime and the JVM's version.
 * Close it with the registry: the GC meters listen to the JVM's GC notifications.
 *
 * <p>The process's CPU time is counted in seconds, {@code process_cpu_seconds_total} as
 * Prometheus's own clients name it, in place of Micrometer's {@code process_cpu_time_ns_total}:
 * Prometheus wants base units. So this is bound before any other meter (it adds a filter to the
 * registry).
 */
public final class JvmMeters implements AutoCloseable {
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final JvmHeapPressureMetrics heapPressure = new JvmHeapPressureMetrics();

  public JvmMeters(MeterRegistry registry) {
    registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")));
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
