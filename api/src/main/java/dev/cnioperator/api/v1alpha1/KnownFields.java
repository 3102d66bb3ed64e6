package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import lombok.EqualsAndHashCode;

/**
 * A part of a spec that remembers the fields this build does not know instead of dropping them, so
 * that a program can refuse a spec written for a newer version of it rather than act on the part it
 * understands.
 *
 * <p>After a rollback ({@code helm rollback}, or any downgrade) the older operator and agent run
 * against objects of the newer version, and Helm leaves the newer CRDs in place, so the API server
 * keeps fields the older programs were not built with. A CniNetwork whose new field changes what
 * its nodes get would otherwise be rendered without it; {@link #unknownFields(Object, String)}
 * names every such field, for the program to refuse the whole spec.
 *
 * <p>Written back as read: JOSDK hands a reconciler a copy of the cached resource made through
 * JSON, which would otherwise drop them and let the refused spec through (KnownFieldsTest).
 */
@EqualsAndHashCode
public abstract class KnownFields {
  @JsonIgnore private final Map<String, JsonNode> unknown = new TreeMap<>();

  @JsonAnySetter
  void putUnknownField(String name, JsonNode value) {
    unknown.put(name, value);
  }

  // @JsonIgnore keeps it out of the generated CRD; Jackson writes an any-getter all the same.
  @JsonAnyGetter
  @JsonIgnore
  Map<String, JsonNode> unknownFieldValues() {
    return unknown;
  }

  /**
   * The path of every field under {@code root} that this build does not know, e.g. {@code
   * spec.rollout.surge}, in a stable order; empty when there is none. Walks the fields of {@code
   * root} that are themselves {@link KnownFields}, or lists of them.
   */
  public static List<String> unknownFields(Object root, String path) {
    List<String> found = new ArrayList<>();
    collect(root, path, found);
    return found;
  }

  private static void collect(Object value, String path, List<String> found) {
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        collect(item, path + "[" + i++ + "]", found);
      }
      return;
    }
    if (!(value instanceof KnownFields known)) {
      return;
    }
    known.unknown.keySet().forEach(name -> found.add(path + "." + name));
    for (Field field : NESTED.get(value.getClass())) {
      try {
        collect(field.get(value), path + "." + field.getName(), found);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(
            "cannot read " + field.getDeclaringClass().getName() + "." + field.getName(), e);
      }
    }
  }

  /**
   * The instance fields of a class and its superclasses up to KnownFields that may hold more of
   * them (not a string, number, boolean or enum), accessible, looked up once per class: the agent
   * walks every network of its spec on every pass.
   */
  private static final ClassValue<List<Field>> NESTED =
      new ClassValue<>() {
        @Override
        protected List<Field> computeValue(Class<?> type) {
          List<Field> fields = new ArrayList<>();
          for (Class<?> c = type; c != KnownFields.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
              Class<?> t = field.getType();
              if (Modifier.isStatic(field.getModifiers())
                  || t.isPrimitive()
                  || t.isEnum()
                  || t == String.class
                  || t == Boolean.class
                  || Number.class.isAssignableFrom(t)) {
                continue;
              }
              field.setAccessible(true);
              fields.add(field);
            }
          }
          return List.copyOf(fields);
        }
      };
}
