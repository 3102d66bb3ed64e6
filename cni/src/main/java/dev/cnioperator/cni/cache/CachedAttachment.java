package dev.cnioperator.cni.cache;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.CniArg;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of libcni's result cache ({@code cniCacheV1}): the attachment's parameters, the bytes
 * of the configuration it was added with, and the final ADD result as raw JSON.
 *
 * @param config the configuration list (or single config) bytes as the runtime loaded them; empty
 *     for a legacy entry that held only a result
 * @param result the raw result JSON, in the version the ADD returned; null if none was cached
 */
public record CachedAttachment(
    String networkName,
    String containerId,
    String ifName,
    String netns,
    List<CniArg> cniArgs,
    Map<String, JsonNode> capabilityArgs,
    byte[] config,
    JsonNode result) {

  public CachedAttachment {
    Objects.requireNonNull(networkName, "networkName");
    Objects.requireNonNull(containerId, "containerId");
    Objects.requireNonNull(ifName, "ifName");
    netns = netns == null ? "" : netns;
    cniArgs = List.copyOf(cniArgs == null ? List.of() : cniArgs);
    capabilityArgs =
        Collections.unmodifiableMap(
            new LinkedHashMap<>(capabilityArgs == null ? Map.of() : capabilityArgs));
    config = config == null ? new byte[0] : config.clone();
  }

  /** The entry for {@code attachment} added to {@code networkName} with {@code config}. */
  public static CachedAttachment of(
      String networkName, Attachment attachment, byte[] config, JsonNode result) {
    return new CachedAttachment(
        networkName,
        attachment.containerId(),
        attachment.ifName(),
        attachment.netns(),
        attachment.cniArgs(),
        attachment.capabilityArgs(),
        config,
        result);
  }

  /** The attachment parameters to CHECK or DEL this entry with, validated. */
  public Attachment attachment() {
    return new Attachment(containerId, netns, ifName, cniArgs, capabilityArgs);
  }

  @Override
  public byte[] config() {
    return config.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CachedAttachment c
        && networkName.equals(c.networkName)
        && containerId.equals(c.containerId)
        && ifName.equals(c.ifName)
        && netns.equals(c.netns)
        && cniArgs.equals(c.cniArgs)
        && capabilityArgs.equals(c.capabilityArgs)
        && Arrays.equals(config, c.config)
        && Objects.equals(result, c.result);
  }

  @Override
  public int hashCode() {
    return Objects.hash(networkName, containerId, ifName, netns, Arrays.hashCode(config));
  }

  @Override
  public String toString() {
    return "CachedAttachment[network="
        + networkName
        + ", container="
        + containerId
        + ", ifName="
        + ifName
        + ", netns="
        + netns
        + "]";
  }
}
