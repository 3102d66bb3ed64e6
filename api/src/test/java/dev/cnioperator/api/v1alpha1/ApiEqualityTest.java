package dev.cnioperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The hand-written equals and hashCode of every spec and status type decide whether the operator
 * and the agent write (an equal object is not written), so a field left out of them silently stops
 * writes. For every type reachable from the resources' specs and statuses, each Jackson property
 * must be a field the type declares, each declared field a Jackson property, and setting any one of
 * them must make the object unequal to a fresh one, with another hash; setting it to an equal value
 * on two objects must keep them equal, with one hash.
 */
class ApiEqualityTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Package PACKAGE = ApiEqualityTest.class.getPackage();

  private static final List<Class<?>> ROOTS =
      List.of(
          CniNetworkSpec.class,
          CniNetworkStatus.class,
          CniNodeSpec.class,
          CniNodeStatus.class,
          CniPluginSpec.class);

  @Test
  void everyTypeOfThePackageWithItsOwnEqualsIsReachedFromTheResources() throws Exception {
    // A type the walk missed would escape the checks below.
    Path classes =
        Path.of(System.getProperty("basedir", "."))
            .toAbsolutePath()
            .resolve("target/classes/" + PACKAGE.getName().replace('.', '/'));
    List<Class<?>> withEquals = new ArrayList<>();
    try (Stream<Path> files = Files.list(classes)) {
      for (Path file : files.toList()) {
        String name = file.getFileName().toString();
        if (name.endsWith(".class") && !name.contains("$")) {
          Class<?> type =
              Class.forName(PACKAGE.getName() + "." + name.substring(0, name.length() - 6));
          if (Stream.of(type.getDeclaredMethods()).anyMatch(m -> m.getName().equals("equals"))) {
            withEquals.add(type);
          }
        }
      }
    }
    assertThat(withEquals).hasSizeGreaterThanOrEqualTo(23);
    assertThat(valueTypes()).containsAll(withEquals);
  }

  @TestFactory
  Stream<DynamicTest> everyPropertyTakesPartInEqualsAndHashCode() {
    return valueTypes().stream()
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
    Map<String, BeanPropertyDefinition> properties = properties(type);
    assertThat(properties.keySet())
        .as("%s: the Jackson properties are its declared fields", type.getSimpleName())
        .containsExactlyInAnyOrderElementsOf(fields);
    for (BeanPropertyDefinition p : properties.values()) {
      Field field = type.getDeclaredField(p.getInternalName());
      field.setAccessible(true);
      Object fresh = type.getConstructor().newInstance();
      Object set = type.getConstructor().newInstance();
      Object setToo = type.getConstructor().newInstance();
      field.set(set, sample(p.getPrimaryType()));
      field.set(setToo, sample(p.getPrimaryType()));
      String what = type.getSimpleName() + "." + field.getName();
      assertThat(set).as(what + " is left out of equals").isNotEqualTo(fresh);
      assertThat(fresh).as(what + " is left out of equals").isNotEqualTo(set);
      assertThat(set.hashCode())
          .as(what + " is left out of hashCode")
          .isNotEqualTo(fresh.hashCode());
      assertThat(set).as(what + " is not compared by value").isEqualTo(setToo);
      assertThat(set.hashCode()).as(what + " is not hashed by value").isEqualTo(setToo.hashCode());
    }
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
      for (BeanPropertyDefinition p : properties(type).values()) {
        for (Class<?> c : ownTypes(p.getPrimaryType())) {
          pending.push(c);
        }
      }
    }
    return seen;
  }

  private static Map<String, BeanPropertyDefinition> properties(Class<?> type) {
    BeanDescription description =
        JSON.getSerializationConfig().introspect(JSON.constructType(type));
    Map<String, BeanPropertyDefinition> byField = new TreeMap<>();
    for (BeanPropertyDefinition p : description.findProperties()) {
      byField.put(p.getInternalName(), p);
    }
    return byField;
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

  /** A value of {@code type} that differs from null and from a fresh object's defaults. */
  private static Object sample(JavaType type) throws Exception {
    Class<?> raw = type.getRawClass();
    if (raw == String.class) {
      return "x";
    }
    if (raw == Integer.class || raw == int.class) {
      return 7;
    }
    if (raw == Long.class || raw == long.class) {
      return 7L;
    }
    if (raw == Double.class || raw == double.class) {
      return 0.25;
    }
    if (raw == Boolean.class || raw == boolean.class) {
      return Boolean.TRUE;
    }
    if (raw.isEnum()) {
      return raw.getEnumConstants()[0];
    }
    if (JsonNode.class.isAssignableFrom(raw)) {
      return JsonNodeFactory.instance.objectNode().put("k", "x");
    }
    if (type.isCollectionLikeType()) {
      return new ArrayList<>(List.of(sample(type.getContentType())));
    }
    if (type.isMapLikeType()) {
      return new LinkedHashMap<>(Map.of("k", sample(type.getContentType())));
    }
    Object bean = raw.getConstructor().newInstance();
    if (raw.getPackage() == PACKAGE) {
      // A fresh object of ours may hash as null does (Objects.hashCode of one null field is 0).
      BeanPropertyDefinition first = properties(raw).values().iterator().next();
      Field field = raw.getDeclaredField(first.getInternalName());
      field.setAccessible(true);
      field.set(bean, sample(first.getPrimaryType()));
    }
    return bean;
  }
}
