package dev.cnioperator.testkit.containerd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a test containerd's config must set on every release, and where each config version keeps it
 * (JSON pointers into the TOML, as {@code internal/cri/config} of 2.x and {@code pkg/cri/config} of
 * 1.x name the keys): the table the written config and containerd's own {@code config dump} are
 * both held to. containerd ignores a key it does not know, so a misplaced one only shows here.
 */
final class ContainerdSettings {
  private static final TomlMapper TOML = new TomlMapper();
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private ContainerdSettings() {}

  /** Pointer to expected value, for {@code config}'s release. */
  static Map<String, JsonNode> expected(ContainerdConfig config) {
    boolean v3 = config.release().configVersion() == 3;
    String runtime =
        v3 ? "/plugins/io.containerd.cri.v1.runtime" : "/plugins/io.containerd.grpc.v1.cri";
    String images = v3 ? "/plugins/io.containerd.cri.v1.images" : runtime + "/containerd";
    String server = "/plugins/io.containerd.grpc.v1.cri";
    String runc = runtime + "/containerd/runtimes/runc";
    Map<String, JsonNode> m = new LinkedHashMap<>();
    m.put("/version", JSON.numberNode(config.release().configVersion()));
    m.put("/root", text(config.root()));
    m.put("/state", text(config.state()));
    var disabled = JSON.arrayNode();
    config.release().disabledPlugins().forEach(disabled::add);
    m.put("/disabled_plugins", disabled);
    m.put("/grpc/address", text(config.socket()));
    m.put("/ttrpc/address", text(config.socket() + ".ttrpc"));
    m.put("/plugins/io.containerd.internal.v1.opt/path", text(config.root().resolve("opt")));
    m.put(
        v3 ? images + "/pinned_images/sandbox" : server + "/sandbox_image",
        text(config.sandboxImage()));
    m.put(images + "/snapshotter", text(config.snapshotter()));
    m.put(server + "/stream_server_address", text("127.0.0.1"));
    m.put(runtime + "/restrict_oom_score_adj", JSON.booleanNode(true));
    m.put(
        runtime + "/netns_mounts_under_state_dir",
        JSON.booleanNode(config.netns() == ContainerdFixture.NetnsPlacement.UNDER_STATE_DIR));
    m.put(runtime + "/containerd/default_runtime_name", text("runc"));
    m.put(runc + "/runtime_type", text("io.containerd.runc.v2"));
    m.put(runc + "/options/Root", text(config.runcRoot()));
    m.put(
        runtime + (v3 ? "/cni/bin_dirs" : "/cni/bin_dir"),
        v3 ? JSON.arrayNode().add(config.cniBinDir().toString()) : text(config.cniBinDir()));
    m.put(runtime + "/cni/conf_dir", text(config.cniConfDir()));
    m.put(runtime + "/cni/max_conf_num", JSON.numberNode(1));
    return m;
  }

  /**
   * {@code v3} as containerd 2.4 reads it: it migrates a version 3 config to version 4 (with a
   * warning in its log), where the gRPC and ttrpc listeners are plugins of their own.
   */
  static Map<String, JsonNode> migratedToVersionFour(Map<String, JsonNode> v3) {
    Map<String, JsonNode> m = new LinkedHashMap<>(v3);
    m.put("/version", JSON.numberNode(4));
    m.put("/plugins/io.containerd.server.v1.grpc/address", m.remove("/grpc/address"));
    m.put("/plugins/io.containerd.server.v1.ttrpc/address", m.remove("/ttrpc/address"));
    return m;
  }

  /** Each expected setting {@code config} does not hold, as {@code pointer: expected, found}. */
  static List<String> mismatches(Map<String, JsonNode> expected, JsonNode config) {
    List<String> found = new ArrayList<>();
    expected.forEach(
        (pointer, want) -> {
          JsonNode got = config.at(pointer);
          boolean same =
              want.isNumber() && got.isNumber() ? want.asLong() == got.asLong() : want.equals(got);
          if (!same) {
            found.add(pointer + ": expected " + want + ", found " + got);
          }
        });
    return found;
  }

  /** Parses a {@code config.toml}. */
  static JsonNode parse(String toml) {
    try {
      return TOML.readTree(toml);
    } catch (IOException e) {
      throw new UncheckedIOException("not TOML:\n" + toml, e);
    }
  }

  private static JsonNode text(Object value) {
    return JSON.textNode(value.toString());
  }
}
