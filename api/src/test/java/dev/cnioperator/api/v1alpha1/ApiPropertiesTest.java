package dev.cnioperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every type reachable from the resources' specs and statuses is a value whose JSON is its fields:
 * it declares equals and hashCode (Lombok's, over every field; whether the operator and the agent
 * write depends on them), each Jackson property is a field the type declares, and each declared
 * field a Jackson property. So no computed getter is written into a resource (or its CRD schema)
 * without being compared, and no compared field is left out of the JSON.
 */
class ApiPropertiesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Package PACKAGE = ApiPropertiesTest.class.getPackage();

  private static final List<Class<?>> ROOTS =
      List.of(
          CniNetworkSpec.class,
          CniNetworkStatus.class,
          CniNodeSpec.class,
          CniNodeStatus.class,
          CniPluginSpec.class);

  @TestFactory
  Stream<DynamicTest> everyTypeIsAValueWhoseJsonPropertiesAreItsFields() {
    Set<Class<?>> types = valueTypes();
    assertThat(types).hasSizeGreaterThanOrEqualTo(23);
    return types.stream()
        .map(type -> DynamicTest.dynamicTest(type.getSimpleName(), () -> check(type)));
  }

  private static void check(Class<?> type) throws Exception {
    assertThat(type.getDeclaredMethod("equals", Object.class)).isNotNull();
    assertThat(type.getDeclaredMethod("hashCode")).isNotNull();
    Set<String> fields = new TreeSet<>();
    for (Field f : type.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        fields.add(f.getName());
      }
    }
    assertThat(properties(type).stream().map(BeanPropertyDefinition::getInternalName))
        .as("%s: the Jackson properties are its declared fields", type.getSimpleName())
        .containsExactlyInAnyOrderElementsOf(fields);
  }

  /** The non-enum types of this package reachable from the roots through Jackson properties. */
  private static Set<Class<?>> valueTypes() {
    Set<Class<?>> seen = new LinkedHashSet<>();
    Deque<Class<?>> pending = new ArrayDeque<>(ROOTS);
    while (!pending.isEmpty()) {
      Class<?> type = pending.pop();
      if (!seen.add(type)) {
        continue;
      }
      for (BeanPropertyDefinition p : properties(type)) {
        for (Class<?> c : ownTypes(p.getPrimaryType())) {
          pending.push(c);
        }
      }
    }
    return seen;
  }

  private static List<BeanPropertyDefinition> properties(Class<?> type) {
    BeanDescription description =
        JSON.getSerializationConfig().introspect(JSON.constructType(type));
    return description.findProperties();
  }

  /** The types of this package (not enums) that {@code type} holds, itself or as elements. */
  private static List<Class<?>> ownTypes(JavaType type) {
    List<Class<?>> out = new ArrayList<>();
    if (type.isContainerType()) {
      out.addAll(ownTypes(type.getContentType()));
    } else if (type.getRawClass().getPackage() == PACKAGE && !type.isEnumType()) {
      out.add(type.getRawClass());
    }
    return out;
  }
}
