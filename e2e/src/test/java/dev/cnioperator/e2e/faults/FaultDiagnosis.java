package dev.cnioperator.e2e.faults;

import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints {@link FaultProduct#diagnosis()} when a test fails, before the class closes the product: a
 * failure in CI then shows what the operator and the agents did, not only what the test waited for.
 * Registered as an instance field, so it sees the class's product.
 */
final class FaultDiagnosis implements TestWatcher {
  private final Supplier<FaultProduct> product;

  FaultDiagnosis(Supplier<FaultProduct> product) {
    this.product = product;
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    FaultProduct fault = product.get();
    if (fault != null) {
      System.out.println(context.getDisplayName() + " failed: " + cause);
      System.out.println(fault.diagnosis());
    }
  }
}
