package dev.cnioperator.e2e.k3s;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Runs the k3s path only where it can run: {@code CNI_OPERATOR_IMAGES} selects the images and a
 * Docker daemon is reachable. Otherwise its tests are skipped with the reason, in CI as well: the
 * path is optional, and the local control plane runs the same scenarios everywhere.
 */
final class K3sPathCondition implements ExecutionCondition {
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String setting = System.getenv(K3sImages.ENV);
    if (setting == null || setting.isBlank()) {
      return ConditionEvaluationResult.disabled(
          "k3s path not selected: set "
              + K3sImages.ENV
              + "=<registry>/<prefix>:<tag> or "
              + K3sImages.JIB_TAR
              + " (docs/images.md)");
    }
    // Asked only once selected: without Docker, Testcontainers' probe logs every strategy it tried.
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      return ConditionEvaluationResult.disabled(
          "k3s path skipped: no Docker daemon is reachable (Testcontainers found none)");
    }
    return ConditionEvaluationResult.enabled("images " + setting + " and Docker are available");
  }
}
