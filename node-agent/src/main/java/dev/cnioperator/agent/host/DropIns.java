package dev.cnioperator.agent.host;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The drop-in files the agent wrote for networks declared onto other products' ({@code
 * spec.appendTo} with {@code appendAs: DropIn}): by network, the directory ({@code <conf
 * dir>/<target network>/}) and each file's sha256 as the agent wrote it (or is about to: saved
 * before the rename). A file of its own in the state dir, not a manifest field, so that an agent of
 * an earlier release, which refuses a manifest with a field it does not know, still reads the
 * manifest after a rollback.
 *
 * @param networks by CniNetwork name
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DropIns(@JsonProperty("networks") Map<String, Files> networks) {
  public static final DropIns NONE = new DropIns(Map.of());

  public DropIns {
    networks = networks == null ? Map.of() : Map.copyOf(new TreeMap<>(networks));
  }

  /**
   * One network's drop-ins.
   *
   * @param target the network whose drop-in directory holds them: the directory's name
   * @param files the file names, with the sha256 of each as written
   */
  public record Files(
      @JsonProperty("target") String target,
      @JsonProperty("files") SortedMap<String, String> files) {
    public Files {
      files = files == null ? new TreeMap<>() : new TreeMap<>(files);
    }
  }

  public Optional<Files> of(String network) {
    return Optional.ofNullable(networks.get(network));
  }

  /** This record with {@code network}'s drop-ins as {@code files}. */
  public DropIns with(String network, Files files) {
    Map<String, Files> next = new TreeMap<>(networks);
    next.put(network, files);
    return new DropIns(next);
  }

  /** This record without {@code network}'s drop-ins. */
  public DropIns without(String network) {
    Map<String, Files> next = new TreeMap<>(networks);
    next.remove(network);
    return new DropIns(next);
  }
}
