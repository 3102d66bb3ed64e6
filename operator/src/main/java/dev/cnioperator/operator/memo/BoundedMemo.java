package dev.cnioperator.operator.memo;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Remembers values by key, at most {@code capacity} of them: past that the least recently used is
 * forgotten. For work reconciles would otherwise repeat on the same informer objects, so sized
 * above what is in use at once. Safe to share between reconciles: JOSDK runs the reconciles of
 * different resources at the same time, on its thread pool. Values are never null.
 */
public final class BoundedMemo<K, V> {
  private final Map<K, V> entries;

  public BoundedMemo(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity " + capacity + " < 1");
    }
    // Access order: a get makes the entry the most recently used one.
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
            return size() > capacity;
          }
        };
  }

  /** The value remembered for {@code key}, or null. */
  public synchronized V get(K key) {
    return entries.get(key);
  }

  /** Remembers {@code value} for {@code key}, in place of any value it had. */
  public synchronized void put(K key, V value) {
    entries.put(key, Objects.requireNonNull(value, "value"));
  }

  /**
   * The value remembered for {@code key}, else {@code compute}'s, then remembered. {@code compute}
   * runs outside the lock, so that other reconciles are not held up by it: two that miss the same
   * key at once both compute it, and the later value is kept.
   */
  public V computeIfAbsent(K key, Function<? super K, ? extends V> compute) {
    V known = get(key);
    if (known != null) {
      return known;
    }
    V made = compute.apply(key);
    put(key, made);
    return made;
  }

  /** How many values it remembers now. */
  public synchronized int size() {
    return entries.size();
  }
}
