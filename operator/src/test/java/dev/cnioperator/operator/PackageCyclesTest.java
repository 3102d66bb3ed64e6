package dev.cnioperator.operator;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The operator's packages form no cycle: each package of {@code dev.cnioperator.operator} (the root
 * package included) is a slice, and no slice depends, through any chain, on itself.
 */
class PackageCyclesTest {
  @Test
  void theOperatorsPackagesAreFreeOfCycles() {
    JavaClasses operator =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.cnioperator.operator");
    slices().matching("dev.cnioperator.(**)").should().beFreeOfCycles().check(operator);
  }
}
