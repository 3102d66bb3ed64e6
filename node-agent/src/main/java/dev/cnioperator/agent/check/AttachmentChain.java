package dev.cnioperator.agent.check;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.agent.conflist.Appended;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which chain a live attachment runs, against the network's file now: libcni caches, with each
 * attachment, the configuration the runtime added it with, and a pod keeps that chain until it is
 * created again. The file holds the network's revision plus what other installers appended after it
 * (a mesh's plugin); an attachment added before the revision, or before such a plugin was chained
 * in, runs an older chain, and only a new pod gets the file's.
 */
public sealed interface AttachmentChain {

  /** Added with the revision the file holds and every plugin appended to it since. */
  record Current() implements AttachmentChain {}

  /** Added with another revision of the network than the file holds. */
  record OlderRevision() implements AttachmentChain {}

  /** Added with the file's revision, but without plugins appended to the file since. */
  record WithoutPlugins(List<String> types) implements AttachmentChain {}

  /** Added with the same revision and appended plugins, or by a different chain of those. */
  record OtherPlugins(List<String> cached, List<String> file) implements AttachmentChain {}

  /** Why the attachment is not on the current chain, as the status says it; null when it is. */
  default String why() {
    if (this instanceof OlderRevision) {
      return "added with an older revision of the network";
    }
    if (this instanceof WithoutPlugins w) {
      return "added without " + String.join(", ", w.types()) + ", which the file now chains";
    }
    if (this instanceof OtherPlugins o) {
      return "added with appended plugins " + o.cached() + ", the file now chains " + o.file();
    }
    return null;
  }

  /**
   * The network's revision and what its file appends now, parsed once for a CHECK round: each
   * attachment then costs one parse, of its own cached configuration.
   */
  final class Judge {
    private final Optional<ObjectNode> revision;
    private final Optional<Appended> now;

    /**
     * @param revision the network's revision as the agent renders it
     * @param file the network's file as it is on disk; null when it cannot be read, and then only
     *     the revision is compared
     */
    public Judge(String revision, byte[] file) {
      this.revision = Appended.parse(revision.getBytes(StandardCharsets.UTF_8));
      this.now =
          file == null ? Optional.empty() : Appended.after(this.revision, Appended.parse(file));
    }

    /** The chain of an attachment whose cached configuration is {@code cached}. */
    public AttachmentChain of(byte[] cached) {
      Optional<Appended> added = Appended.after(revision, Appended.parse(cached));
      if (added.isEmpty()) {
        return new OlderRevision();
      }
      if (now.isEmpty() || now.get().types().equals(added.get().types())) {
        return new Current();
      }
      List<String> missing = new ArrayList<>(now.get().types());
      added.get().types().forEach(missing::remove);
      if (!missing.isEmpty() && now.get().types().containsAll(added.get().types())) {
        return new WithoutPlugins(missing);
      }
      return new OtherPlugins(added.get().types(), now.get().types());
    }
  }
}
