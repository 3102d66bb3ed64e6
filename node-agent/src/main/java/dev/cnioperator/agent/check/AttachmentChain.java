package dev.cnioperator.agent.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.agent.conflist.Appended;
import dev.cnioperator.agent.conflist.PluginSegments;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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

  /** Which chain each attachment of one network runs, judged against what was parsed once. */
  interface Judge {
    /** The chain of an attachment whose cached configuration is {@code cached}. */
    AttachmentChain of(byte[] cached);

    /**
     * For a network of its own file: its revision and what others append to the file now.
     *
     * @param revision the network's revision as the agent renders it
     * @param file the network's file as it is on disk; null when it cannot be read, and then only
     *     the revision is compared
     */
    static Judge revision(String revision, byte[] file) {
      return new Revision(revision, file);
    }

    /**
     * For a network appended to another product's ({@code spec.appendTo}): an attachment runs the
     * current chain when its cached configuration holds every declared entry; otherwise it was
     * added before they were (re)applied, and lacks them.
     *
     * @param declared the network's declared content, a list whose plugins are the entries
     */
    static Judge declared(String declared) {
      List<JsonNode> entries = new ArrayList<>();
      Appended.parse(declared.getBytes(StandardCharsets.UTF_8))
          .map(o -> o.get("plugins"))
          .ifPresent(p -> p.forEach(entries::add));
      return cached -> {
        List<JsonNode> chain =
            Appended.parse(cached)
                .map(
                    o ->
                        PluginSegments.ofTarget(o, entries, Set.of())
                            .of(PluginSegments.Owner.DECLARED))
                .orElse(List.of());
        List<String> missing = new ArrayList<>();
        for (JsonNode e : entries) {
          if (chain.stream().noneMatch(c -> Appended.same(e, c))) {
            missing.add(e.path("type").asText("?"));
          }
        }
        return missing.isEmpty() ? new Current() : new WithoutPlugins(missing);
      };
    }
  }

  /** {@link Judge#revision}: the revision and the file's appended plugins, parsed once. */
  final class Revision implements Judge {
    private final Optional<ObjectNode> revision;
    private final Optional<Appended> now;

    private Revision(String revision, byte[] file) {
      this.revision = Appended.parse(revision.getBytes(StandardCharsets.UTF_8));
      this.now =
          file == null ? Optional.empty() : Appended.after(this.revision, Appended.parse(file));
    }

    @Override
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
