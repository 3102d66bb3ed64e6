package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Map;

/**
 * The schema of one plugin configuration object, used only to generate the CRD: the keys the API
 * server can check at the door, with every other key passed through. The Java field stays an
 * ObjectNode so unknown keys keep their order and values.
 */
@PreserveUnknownFields
@ValidationRule(
    value = "!has(self.runtimeConfig)",
    message =
        "runtimeConfig is reserved for the runtime (CNI spec section 1); declare capabilities instead",
    reason = "FieldValueForbidden",
    fieldPath = ".runtimeConfig")
@ValidationRule(
    value = "!has(self.args)",
    message = "args is reserved for the runtime (CNI spec section 1)",
    reason = "FieldValueForbidden",
    fieldPath = ".args")
public final class PluginConfigSchema {

  @JsonPropertyDescription(
      "Name of the plugin binary in the node's CNI plugin directory: a plain file name, no '/', '\\\\' or '..'.")
  @Required
  @Pattern(PluginNames.PATTERN)
  @Size(min = 1, max = PluginNames.MAX_LENGTH)
  public String type;

  @JsonPropertyDescription(
      "IP address management: 'type' names the IPAM plugin binary; every other key passes through.")
  public IpamSchema ipam;

  @JsonPropertyDescription(
      "Capabilities this plugin accepts through runtimeConfig (CNI conventions), each true or false.")
  public Map<String, Boolean> capabilities;

  @JsonPropertyDescription("DNS settings the plugin reports in its result.")
  public DnsSchema dns;

  // Declared (as objects) only so the CEL rules above can see them; any value is refused.
  @JsonPropertyDescription("Reserved for the runtime, refused.")
  public AnyObject runtimeConfig;

  @JsonPropertyDescription("Reserved for the runtime, refused.")
  public AnyObject args;

  /** The ipam object: a checked type, everything else passed through. */
  @PreserveUnknownFields
  public static final class IpamSchema {
    @JsonPropertyDescription(
        "Name of the IPAM plugin binary: a plain file name, no '/', '\\\\' or '..'.")
    @Pattern(PluginNames.PATTERN)
    @Size(min = 1, max = PluginNames.MAX_LENGTH)
    public String type;
  }

  /** An object with any keys. */
  @PreserveUnknownFields
  public static final class AnyObject {}

  /** The dns object exactly as the CNI spec defines it. */
  public static final class DnsSchema {
    @JsonPropertyDescription("Priority-ordered DNS nameservers, IPv4 or IPv6 addresses.")
    public List<String> nameservers;

    @JsonPropertyDescription("The local domain used for short hostname lookups.")
    public String domain;

    @JsonPropertyDescription("Priority-ordered search domains for short hostname lookups.")
    public List<String> search;

    @JsonPropertyDescription("Options passed to the resolver.")
    public List<String> options;
  }
}
