package dev.cnioperator.e2e.chart;

/** What a test class started, stopped in the order given: each one even if one before it failed. */
final class Teardown {
  private Teardown() {}

  /**
   * Closes every part that is not null, in order, and throws the first failure with the later ones
   * suppressed in it.
   */
  static void closeAll(AutoCloseable... parts) {
    IllegalStateException failure = null;
    for (AutoCloseable part : parts) {
      if (part == null) {
        continue;
      }
      try {
        part.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("teardown failed: " + e.getMessage(), e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
