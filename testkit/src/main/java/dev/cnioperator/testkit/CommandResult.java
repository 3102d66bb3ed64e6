package dev.cnioperator.testkit;

/** The outcome of a finished command: exit code and everything it printed. */
public record CommandResult(int exitCode, String stdout, String stderr) {
  public boolean ok() {
    return exitCode == 0;
  }

  /** Returns this when the command succeeded; otherwise throws with everything it printed. */
  public CommandResult orThrow(String what) {
    if (!ok()) {
      throw new IllegalStateException(
          what + " exited " + exitCode + "\nstdout: " + stdout + "\nstderr: " + stderr);
    }
    return this;
  }
}
