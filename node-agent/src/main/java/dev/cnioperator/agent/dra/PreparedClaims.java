package dev.cnioperator.agent.dra;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.cnioperator.agent.host.HostFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claims on networks the kubelet has prepared on this node and not unprepared: for each, the
 * networks it was allocated and the pods it is reserved for. What the scheduler counts against a
 * network's capacity is its allocated claims; so the addresses those pods hold are the scheduler's
 * already, and only the others' are taken off the capacity the agent publishes.
 *
 * <p>Kept in a file of the agent's state directory (the kubelet does not prepare a claim again
 * after the agent restarts); an entry goes with the kubelet's unprepare. A record that cannot be
 * read or written costs only accuracy the safe way: pods' addresses counted as taken.
 */
public final class PreparedClaims {
  private static final Logger LOG = LoggerFactory.getLogger(PreparedClaims.class);
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * One prepared claim.
   *
   * @param networks the networks it was allocated on this node (its devices' names), each once
   * @param pods the uids of the pods it is reserved for, in its {@code reservedFor} order
   * @param allocated its allocation's results of this driver on this node, in the allocation's
   *     order: what its {@code status.devices} entries are for ({@link ClaimStatusWriter}); one for
   *     each network without a share where a record written before it knew them says nothing
   */
  public record Claim(
      String uid,
      String namespace,
      String name,
      List<String> networks,
      List<String> pods,
      List<Allocation> allocated) {
    public Claim {
      networks = List.copyOf(networks);
      pods = List.copyOf(pods);
      allocated =
          allocated == null
              ? networks.stream().map(n -> new Allocation(n, null)).toList()
              : List.copyOf(allocated);
    }

    /** A claim whose allocation is one device of each network, none of them shared. */
    public Claim(
        String uid, String namespace, String name, List<String> networks, List<String> pods) {
      this(uid, namespace, name, networks, pods, null);
    }
  }

  /**
   * One allocated device of a claim on this node (the pool is the node's).
   *
   * @param device the network's name
   * @param shareID the allocation's share of the device, which many claims share; null when none
   */
  public record Allocation(String device, String shareID) {}

  record Record(List<Claim> claims) {}

  private final HostFiles files;
  private final Path file;
  private final Map<String, Claim> claims = new TreeMap<>();

  public PreparedClaims(HostFiles files, Path file) {
    this.files = files;
    this.file = file;
    try {
      Optional<byte[]> bytes = files.read(file);
      if (bytes.isPresent()) {
        JSON.readValue(bytes.get(), Record.class).claims().forEach(c -> claims.put(c.uid(), c));
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("event=prepared-claims-unreadable file={} error=\"{}\"", file, e.getMessage());
    }
  }

  /** The kubelet prepared {@code claim} (again, or for the first time). */
  public synchronized void prepared(Claim claim) {
    if (!claim.equals(claims.put(claim.uid(), claim))) {
      save();
    }
  }

  /** The kubelet unprepared the claim of {@code uid}. */
  public synchronized void unprepared(String uid) {
    if (claims.remove(uid) != null) {
      save();
    }
  }

  /** The claims prepared now, a copy. */
  public synchronized List<Claim> snapshot() {
    return List.copyOf(claims.values());
  }

  /** The uids of the pods a prepared claim on {@code network} is reserved for. */
  public synchronized Set<String> podsClaiming(String network) {
    Set<String> pods = new HashSet<>();
    for (Claim c : claims.values()) {
      if (c.networks().contains(network)) {
        pods.addAll(c.pods());
      }
    }
    return pods;
  }

  private void save() {
    try {
      files.createDirectories(file.getParent());
      files.writeAtomically(
          file, JSON.writeValueAsBytes(new Record(new ArrayList<>(claims.values()))), false);
    } catch (IOException e) {
      LOG.warn("event=prepared-claims-unsaved file={} error=\"{}\"", file, e.getMessage());
    }
  }
}
