package dev.cnioperator.agent.conflist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.config.LibcniNetworks;
import java.util.function.Function;

/**
 * Another product's network in the runtime's configuration directory, found by its CNI name as
 * libcni finds it ({@link LibcniNetworks}), in the terms of a chain declared onto it: a list to
 * append to, or why there is none. libcni gives up at the first file it cannot parse on the way,
 * and so does this: a file being written, or broken, before the target makes the agent unsure which
 * file the runtime would take.
 */
public sealed interface ChainTarget {

  /** {@code found} applied to a found target, {@code absent} to an absent one. */
  <R> R accept(Function<Found, R> found, Function<Absent, R> absent);

  /** The network's list, with the drop-ins libcni appends to it. */
  record Found(LibcniNetworks.Found network) implements ChainTarget {
    @Override
    public <R> R accept(Function<Found, R> found, Function<Absent, R> absent) {
      return found.apply(this);
    }

    public String fileName() {
      return network.fileName();
    }

    /** The file, parsed. */
    public ObjectNode list() {
      return network.list();
    }

    /** The cniVersion the runtime runs the file's chain with. */
    public String cniVersion() {
      return network.cniVersion();
    }

    /** What the runtime runs once the file holds {@code file}: its plugins, then the drop-ins. */
    public ObjectNode runs(ObjectNode file) {
      return network.chain(file);
    }
  }

  /**
   * Not found, or not a file the agent may append to: nothing is edited. {@code passing} when it
   * may be a moment's state: a file that is not valid JSON may be half-written.
   */
  record Absent(String why, boolean passing) implements ChainTarget {
    Absent(String why) {
      this(why, false);
    }

    @Override
    public <R> R accept(Function<Found, R> found, Function<Absent, R> absent) {
      return absent.apply(this);
    }
  }

  /** Resolves {@code name} in the runtime's directory {@code dir}, as libcni finds it. */
  static ChainTarget resolve(String name, LibcniNetworks.Directory dir) {
    return LibcniNetworks.find(name, dir)
        .accept(
            new LibcniNetworks.Lookup.Visitor<ChainTarget>() {
              @Override
              public ChainTarget found(LibcniNetworks.Found found) {
                JsonNode plugins = found.list().get("plugins");
                return plugins != null && plugins.isArray()
                    ? new Found(found)
                    : new Absent(
                        found.fileName() + " names network " + name + " but has no plugins list");
              }

              @Override
              public ChainTarget singlePlugin(LibcniNetworks.SinglePlugin single) {
                return new Absent(
                    "network "
                        + name
                        + " is the single-plugin file "
                        + single.fileName()
                        + ", which holds no chain to append to; not edited (its product would"
                        + " need to write a .conflist)");
              }

              @Override
              public ChainTarget stopped(LibcniNetworks.Stopped stopped) {
                return new Absent(
                    stopped.fileName()
                        + " is not valid JSON (being written, or broken), and libcni stops there"
                        + " looking for network "
                        + name
                        + "; nothing is edited until it is",
                    true);
              }

              @Override
              public ChainTarget notFound(LibcniNetworks.NotFound notFound) {
                return new Absent(
                    "no configuration file of network "
                        + name
                        + " in the runtime's directory; waiting for its product to write one");
              }
            });
  }
}
