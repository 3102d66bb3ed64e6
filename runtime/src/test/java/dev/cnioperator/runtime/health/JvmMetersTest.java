package dev.cnioperator.runtime.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

class JvmMetersTest {

  @Test
  void theJvmAndProcessMetersAreScrapedInBaseUnits() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().meterFilter(JvmMeters.BASE_UNITS);
    try (JvmMeters ignored = new JvmMeters(registry)) {
      assertThat(registry.scrape())
          .contains("jvm_memory_used_bytes{")
          .contains("jvm_memory_max_bytes{")
          .contains("jvm_gc_memory_allocated_bytes_total")
          .contains("jvm_threads_live_threads")
          .contains("jvm_classes_loaded_classes")
          .contains("jvm_info{")
          .contains("process_cpu_usage")
          .containsPattern("process_cpu_seconds_total [0-9]")
          .doesNotContain("process_cpu_time_ns")
          .contains("system_cpu_count")
          .contains("process_files_open_files")
          .contains("process_files_max_files")
          .contains("process_uptime_seconds")
          .contains("process_start_time_seconds")
          .doesNotContain("_total_total");
    }
  }
}
