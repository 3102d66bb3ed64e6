package dev.cnioperator.cni.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.GcAttachment;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.PluginConfig;
import dev.cnioperator.cni.config.VersionSelection;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.PluginExecutor;
import dev.cnioperator.cni.exec.PluginInvoker;
import dev.cnioperator.cni.exec.PluginLocator;
import dev.cnioperator.cni.exec.Verb;
import dev.cnioperator.cni.result.Result;
import dev.cnioperator.cni.result.Results;
import dev.cnioperator.cni.result.VersionResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes network configuration lists as SPEC-1.1.0.md Section 3 says and as libcni's {@code
 * CNIConfig} does: ADD through the chain with {@code prevResult} forwarded and the final result
 * cached, CHECK and DEL (in reverse) with the cached result, GC with the valid attachments, STATUS
 * and VERSION. The version used is libcni's choice ({@link VersionSelection#select}).
 */
public final class CniRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(CniRuntime.class);

  private final PluginInvoker invoker;
  private final ResultCache cache;

  public CniRuntime(
      PluginExecutor executor, List<Path> cniPath, ResultCache cache, Duration timeout) {
    this.invoker = new PluginInvoker(executor, new PluginLocator(cniPath), timeout);
    this.cache = cache;
  }

  public ResultCache cache() {
    return cache;
  }

  /** ADD through the chain; the last plugin's result is cached (libcni's format) and returned. */
  public Result addNetworkList(NetworkConfigList list, Attachment attachment) {
    CniVersion version = VersionSelection.select(list);
    long started = System.nanoTime();
    Result result = null;
    for (PluginConfig plugin : list.plugins()) {
      JsonNode prev = result == null ? null : result.toJson();
      byte[] stdout = run(list, version, plugin, Verb.ADD, attachment, prev);
      result = invoker.parseResult(plugin.type(), stdout, version);
    }
    cache.write(CachedAttachment.of(list.name(), attachment, list.bytes(), result.toJson()));
    log(Verb.ADD, list, attachment, started);
    return result;
  }

  /**
   * CHECK through the chain with the cached ADD result as {@code prevResult}; does nothing when the
   * list sets {@code disableCheck}.
   *
   * @throws CniException INCOMPATIBLE_VERSION below 0.4.0 (CHECK does not exist there),
   *     UNKNOWN_CONTAINER when the attachment has no cached result (it was never added, or was
   *     deleted: SPEC-1.1.0.md forbids CHECK then), or the first plugin's failure
   */
  public void checkNetworkList(NetworkConfigList list, Attachment attachment) {
    CniVersion version = VersionSelection.select(list);
    if (!version.supportsCheck()) {
      throw new CniException(
          CniErrorCode.INCOMPATIBLE_VERSION,
          "configuration version " + version + " does not support the CHECK command",
          "network " + list.name());
    }
    if (list.disableCheck()) {
      LOG.debug("event=check-disabled network={}", list.name());
      return;
    }
    long started = System.nanoTime();
    JsonNode prev =
        cachedResult(list, attachment)
            .orElseThrow(
                () ->
                    new CniException(
                        CniErrorCode.UNKNOWN_CONTAINER,
                        "no cached result for attachment",
                        cache.resultPath(list.name(), attachment.containerId(), attachment.ifName())
                            + " does not exist"))
            .toJson();
    for (PluginConfig plugin : list.plugins()) {
      run(list, version, plugin, Verb.CHECK, attachment, prev);
    }
    log(Verb.CHECK, list, attachment, started);
  }

  /**
   * DEL through the chain in reverse order, with the cached ADD result as {@code prevResult} from
   * 0.4.0 on; the cache entry is removed after success. A missing or unreadable cache entry means a
   * DEL without {@code prevResult}, as libcni does, so a half-made attachment can still be removed.
   */
  public void delNetworkList(NetworkConfigList list, Attachment attachment) {
    CniVersion version = VersionSelection.select(list);
    long started = System.nanoTime();
    JsonNode prev = null;
    if (version.supportsCheck()) {
      try {
        prev = cachedResult(list, attachment).map(Result::toJson).orElse(null);
      } catch (CniException e) {
        LOG.warn(
            "event=cache-unusable network={} container={} ifName={} error=\"{}\"",
            list.name(),
            attachment.containerId(),
            attachment.ifName(),
            e.getMessage());
        cache.remove(list.name(), attachment.containerId(), attachment.ifName());
      }
    }
    List<PluginConfig> plugins = list.plugins();
    for (int i = plugins.size() - 1; i >= 0; i--) {
      run(list, version, plugins.get(i), Verb.DEL, attachment, prev);
    }
    cache.remove(list.name(), attachment.containerId(), attachment.ifName());
    log(Verb.DEL, list, attachment, started);
  }

  /**
   * GC as libcni's {@code GCNetworkList}: first DEL every cached attachment of this network that is
   * not in {@code valid}, then (1.1.0 and later) GC every plugin with {@code
   * cni.dev/valid-attachments} (and {@code cni.dev/attachments}, the key the 1.1.0 text used).
   * Every step runs; all failures come back together. Nothing happens when {@code disableGC}.
   *
   * @throws GcException holding every failure
   */
  public void gcNetworkList(NetworkConfigList list, List<GcAttachment> valid) {
    if (list.disableGC()) {
      LOG.debug("event=gc-disabled network={}", list.name());
      return;
    }
    CniVersion version = VersionSelection.select(list);
    long started = System.nanoTime();
    List<CniException> failures = new ArrayList<>();
    int deleted = 0;
    for (CachedAttachment cached : cache.list(list.name())) {
      if (valid.contains(new GcAttachment(cached.containerId(), cached.ifName()))) {
        continue;
      }
      try {
        delNetworkList(list, cached.attachment());
        deleted++;
      } catch (CniException e) {
        failures.add(e);
      }
    }
    if (version.supportsGcAndStatus()) {
      for (PluginConfig plugin : list.plugins()) {
        byte[] request = PluginConfig.toBytes(plugin.gcRequestConfig(list.name(), version, valid));
        try {
          invoker.invoke(plugin.type(), Verb.GC, null, request);
        } catch (CniException e) {
          failures.add(e);
        }
      }
    }
    LOG.info(
        "event=cni-gc network={} valid={} deleted={} failures={} millis={}",
        list.name(),
        valid.size(),
        deleted,
        failures.size(),
        millisSince(started));
    if (!failures.isEmpty()) {
      throw new GcException(list.name(), failures);
    }
  }

  /**
   * STATUS of every plugin in order, stopping at the first that is not ready (1.1.0 and later;
   * older lists have no STATUS and are taken as ready, as libcni does).
   */
  public void getStatusNetworkList(NetworkConfigList list) {
    CniVersion version = VersionSelection.select(list);
    if (!version.supportsGcAndStatus()) {
      LOG.debug("event=status-unsupported network={} version={}", list.name(), version);
      return;
    }
    for (PluginConfig plugin : list.plugins()) {
      byte[] request = PluginConfig.toBytes(plugin.networkRequestConfig(list.name(), version));
      invoker.invoke(plugin.type(), Verb.STATUS, null, request);
    }
  }

  /** The versions a plugin reports through VERSION. */
  public VersionResult getVersionInfo(String pluginType) {
    return invoker.versionInfo(pluginType);
  }

  /**
   * libcni's {@code ValidateNetworkList}, plus the delegated IPAM plugins: every binary the list
   * names is on {@code CNI_PATH} and every plugin's VERSION lists the version the list runs with.
   *
   * @throws CniException INCOMPATIBLE_VERSION or PLUGIN_NOT_FOUND naming every problem found
   */
  public void validateNetworkList(NetworkConfigList list) {
    CniVersion version = VersionSelection.select(list);
    List<String> problems = new ArrayList<>();
    int code = 0;
    for (PluginConfig plugin : list.plugins()) {
      try {
        if (!getVersionInfo(plugin.type()).supports(version)) {
          problems.add("plugin " + plugin.type() + " does not support version " + version);
          code = code == 0 ? CniErrorCode.INCOMPATIBLE_VERSION.code() : code;
        }
        plugin.ipamType().ifPresent(invoker.locator()::find);
      } catch (CniException e) {
        problems.add(e.getMessage());
        code = code == 0 ? e.code() : code;
      }
    }
    if (!problems.isEmpty()) {
      throw new CniException(
          code, "network " + list.name() + " cannot run here", String.join("; ", problems));
    }
  }

  /**
   * The cached ADD result of an attachment, converted to the list's version so plugins get {@code
   * prevResult} in the version of their configuration.
   */
  public Optional<Result> cachedResult(NetworkConfigList list, Attachment attachment) {
    Optional<CachedAttachment> entry =
        cache.read(list.name(), attachment.containerId(), attachment.ifName());
    if (entry.isEmpty() || entry.get().result() == null) {
      return Optional.empty();
    }
    // libcni reads a cached result in its own version (0.1.0 when it states none).
    Result cached = Results.parse(entry.get().result());
    return Optional.of(cached.convertTo(VersionSelection.select(list)));
  }

  private byte[] run(
      NetworkConfigList list,
      CniVersion version,
      PluginConfig plugin,
      Verb verb,
      Attachment attachment,
      JsonNode prevResult) {
    byte[] request =
        plugin.requestBytes(list.name(), version, attachment.capabilityArgs(), prevResult);
    try {
      return invoker.invoke(plugin.type(), verb, attachment, request);
    } catch (CniException e) {
      LOG.info(
          "event=plugin-failed network={} container={} ifName={} verb={} plugin={} code={}"
              + " error=\"{}\"",
          list.name(),
          attachment.containerId(),
          attachment.ifName(),
          verb,
          plugin.type(),
          e.code(),
          e.getMessage());
      throw e;
    }
  }

  private static void log(Verb verb, NetworkConfigList list, Attachment a, long started) {
    LOG.info(
        "event=cni-{} network={} container={} ifName={} netns={} millis={}",
        verb.name().toLowerCase(Locale.ROOT),
        list.name(),
        a.containerId(),
        a.ifName(),
        a.netns(),
        millisSince(started));
  }

  private static long millisSince(long started) {
    return (System.nanoTime() - started) / 1_000_000;
  }
}
