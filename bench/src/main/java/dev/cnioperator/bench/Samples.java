package dev.cnioperator.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Measurements of one quantity over several runs, with the order statistics the benchmarks report.
 * p99 is the nearest-rank percentile, so with fewer than 100 runs it is the largest value.
 */
public final class Samples {
  private final List<Double> values = new ArrayList<>();

  public synchronized void add(double value) {
    values.add(value);
  }

  public synchronized int count() {
    return values.size();
  }

  public double median() {
    List<Double> s = sorted();
    if (s.isEmpty()) {
      return Double.NaN;
    }
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  public double p99() {
    return percentile(99);
  }

  /** Nearest-rank percentile: the smallest value with at least {@code p}% of runs at or below. */
  public double percentile(int p) {
    List<Double> s = sorted();
    if (s.isEmpty()) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p / 100.0 * s.size());
    return s.get(Math.max(0, rank - 1));
  }

  public double min() {
    List<Double> s = sorted();
    return s.isEmpty() ? Double.NaN : s.get(0);
  }

  public double max() {
    List<Double> s = sorted();
    return s.isEmpty() ? Double.NaN : s.get(s.size() - 1);
  }

  private synchronized List<Double> sorted() {
    List<Double> s = new ArrayList<>(values);
    Collections.sort(s);
    return s;
  }

  @Override
  public synchronized String toString() {
    return values.toString();
  }
}
