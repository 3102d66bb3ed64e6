package dev.cnioperator.testkit;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * A CRD of the control plane with string properties added to its schema, as a newer release's CRD
 * stays after a rollback (Helm never rolls CRDs back): the API server then keeps fields the
 * programs under test do not know instead of pruning them. Closing it takes them out again.
 */
public final class NewerCrd implements AutoCloseable {
  private final LocalControlPlane controlPlane;
  private final String crd;
  private final List<String> pointers;

  private NewerCrd(LocalControlPlane controlPlane, String crd, List<String> pointers) {
    this.controlPlane = controlPlane;
    this.crd = crd;
    this.pointers = pointers;
  }

  /**
   * Adds a string property to the schema of {@code crd}'s storage version at each of {@code
   * fields}, written as paths in the resource: {@code spec.rollout.surge}, {@code
   * spec.networks[].newThing} (a property of each item). The API server serves the new schema a
   * moment later; a test waits for it with a dry-run write.
   */
  public static NewerCrd install(LocalControlPlane controlPlane, String crd, String... fields) {
    List<CustomResourceDefinitionVersion> versions =
        resource(controlPlane, crd).require().getSpec().getVersions();
    int storage =
        IntStream.range(0, versions.size())
            .filter(i -> versions.get(i).getStorage())
            .findFirst()
            .orElseThrow();
    List<String> pointers = Arrays.stream(fields).map(f -> pointer(storage, f)).toList();
    NewerCrd newer = new NewerCrd(controlPlane, crd, pointers);
    newer.patch(
        pointers.stream()
            .map(
                p ->
                    Map.<String, Object>of(
                        "op", "add", "path", p, "value", Map.of("type", "string")))
            .toList());
    return newer;
  }

  private static String pointer(int version, String field) {
    StringBuilder p = new StringBuilder("/spec/versions/" + version + "/schema/openAPIV3Schema");
    for (String part : field.split("\\.")) {
      boolean items = part.endsWith("[]");
      p.append("/properties/").append(items ? part.substring(0, part.length() - 2) : part);
      if (items) {
        p.append("/items");
      }
    }
    return p.toString();
  }

  private static Resource<CustomResourceDefinition> resource(
      LocalControlPlane controlPlane, String crd) {
    return controlPlane.client().apiextensions().v1().customResourceDefinitions().withName(crd);
  }

  private void patch(List<Map<String, Object>> operations) {
    resource(controlPlane, crd)
        .patch(PatchContext.of(PatchType.JSON), Serialization.asJson(operations));
  }

  /**
   * Takes the added properties out again, and gives the CRD back to the field manager that applies
   * the committed one: the patches made this client the manager of {@code .spec.versions}, so a
   * later {@code kubectl apply --server-side -f crds/} in the same control plane (another test's
   * set-up) would be refused as a conflict with it.
   */
  @Override
  public void close() {
    patch(pointers.stream().map(p -> Map.<String, Object>of("op", "remove", "path", p)).toList());
    Path committed = ToolPaths.repoRoot().resolve("crds").resolve(crd + ".yaml");
    if (Files.isRegularFile(committed)) {
      controlPlane
          .kubectl("apply", "--server-side", "--force-conflicts", "-f", committed.toString())
          .orThrow("kubectl apply --server-side --force-conflicts -f " + committed);
    }
  }
}
