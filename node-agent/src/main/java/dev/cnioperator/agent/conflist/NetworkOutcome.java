package dev.cnioperator.agent.conflist;

import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.NetworkState;
import java.util.Collection;

/**
 * What became of one network on this node in a pass; becomes its entry in the CniNode status.
 *
 * @param appliedSha256 the sha256 of the agent's file on disk for this network, or null
 * @param drift true when the pass restored a file someone else changed or removed
 * @param directory where the network's file is: only the runtime's directory holds a network the
 *     runtime can take for its pod network
 * @param appended the plugin entries another installer appended to the network's file, kept
 * @param fileSha256 the sha256 of the network's file as it is on disk, what the runtime loads: the
 *     revision's own ({@code appliedSha256}) unless entries were appended; null when not applied
 * @param appendedAs for a network declared onto another product's, how its entries are held there;
 *     null otherwise, or when they are not held now
 */
public record NetworkOutcome(
    String network,
    String fileName,
    NetworkState state,
    String appliedSha256,
    String message,
    boolean drift,
    ConfigDirectory directory,
    Appended appended,
    String fileSha256,
    AppendPlacement appendedAs) {

  public NetworkOutcome {
    directory = directory == null ? ConfigDirectory.Runtime : directory;
    appended = appended == null ? Appended.NONE : appended;
  }

  /** This outcome saying {@code newMessage}. */
  public NetworkOutcome withMessage(String newMessage) {
    return new NetworkOutcome(
        network,
        fileName,
        state,
        appliedSha256,
        newMessage,
        drift,
        directory,
        appended,
        fileSha256,
        appendedAs);
  }

  /** Whether the network's file is in the runtime's directory, where its pod network comes from. */
  public boolean inRuntimeDirectory() {
    return directory == ConfigDirectory.Runtime;
  }

  public static NetworkOutcome applied(DesiredConflist d, boolean drift) {
    return applied(d, drift, Appended.NONE, d.sha256());
  }

  public static NetworkOutcome applied(
      DesiredConflist d, boolean drift, Appended appended, String fileSha256) {
    String message =
        drift ? "restored " + d.fileName() + " after someone changed or removed it" : "";
    return new NetworkOutcome(
        d.network(),
        d.fileName(),
        NetworkState.Applied,
        d.sha256(),
        message,
        drift,
        d.directory(),
        appended,
        fileSha256,
        null);
  }

  /**
   * A network's entries held in another product's {@code fileName} (sha256 {@code fileSha256} as it
   * is now); {@code reapplied} when the pass put them back after that product rewrote its file;
   * {@code note}, why they are in place when drop-ins were asked for.
   */
  public static NetworkOutcome appendedTo(
      DesiredConflist d, String fileName, String fileSha256, boolean reapplied, String note) {
    String message =
        "plugins appended to network "
            + d.appendTo()
            + " in "
            + fileName
            + (reapplied ? "; put back after its product rewrote the file without them" : "")
            + (note == null || note.isEmpty() ? "" : "; " + note);
    return new NetworkOutcome(
        d.network(),
        fileName,
        NetworkState.Applied,
        d.sha256(),
        message,
        reapplied,
        d.directory(),
        null,
        fileSha256,
        AppendPlacement.InPlace);
  }

  /**
   * A network's entries held as drop-ins of network {@code d.appendTo()}, whose file {@code
   * fileName} (sha256 {@code fileSha256}) is not touched; {@code restored} when the pass put back
   * drop-ins someone changed or removed.
   */
  public static NetworkOutcome droppedIn(
      DesiredConflist d,
      String fileName,
      String fileSha256,
      Collection<String> dropIns,
      boolean restored) {
    String message =
        "plugins added to network "
            + d.appendTo()
            + " ("
            + fileName
            + ") as drop-ins "
            + d.appendTo()
            + "/{"
            + String.join(",", dropIns)
            + "}"
            + (restored ? "; put back after someone changed or removed them" : "");
    return new NetworkOutcome(
        d.network(),
        fileName,
        NetworkState.Applied,
        d.sha256(),
        message,
        restored,
        d.directory(),
        null,
        fileSha256,
        AppendPlacement.DropIn);
  }

  public static NetworkOutcome failed(DesiredConflist d, String appliedSha256, String message) {
    return new NetworkOutcome(
        d.network(),
        d.fileName(),
        NetworkState.Failed,
        appliedSha256,
        message,
        false,
        d.directory(),
        null,
        null,
        null);
  }

  public static NetworkOutcome contested(DesiredConflist d, String message) {
    return contested(d, d.fileName(), message);
  }

  /** Contested in {@code fileName}: the network's own file, or the one it is appended to. */
  public static NetworkOutcome contested(DesiredConflist d, String fileName, String message) {
    return unapplied(d, fileName, NetworkState.Contested, message);
  }

  public static NetworkOutcome conflict(DesiredConflist d, String message) {
    return unapplied(d, d.fileName(), NetworkState.Conflict, message);
  }

  /** Not applied, and no file of the agent's holds it: {@code state}, for {@code message}. */
  private static NetworkOutcome unapplied(
      DesiredConflist d, String fileName, NetworkState state, String message) {
    return new NetworkOutcome(
        d.network(), fileName, state, null, message, false, d.directory(), null, null, null);
  }
}
