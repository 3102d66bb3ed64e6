package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.ToolPaths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The commands a release's notes (NOTES.txt as helm printed it) tell the user to run. */
final class NotesCommands {
  private static final Pattern CREATED =
      Pattern.compile("^cninetwork\\.cnioperator\\.dev/(\\S+) (?:created|configured|unchanged)$");

  private NotesCommands() {}

  /**
   * Each {@code kubectl} command of {@code notes} in order, without the word {@code kubectl}, but
   * those that delete (the uninstall advice): a command continued over lines with {@code \} is one;
   * a path under {@code examples/} is made absolute in this checkout.
   */
  static List<List<String>> kubectl(String notes) {
    List<List<String>> commands = new ArrayList<>();
    StringBuilder pending = null;
    for (String raw : notes.split("\n")) {
      String line = raw.strip();
      if (pending == null && !line.startsWith("kubectl ")) {
        continue;
      }
      pending = pending == null ? new StringBuilder() : pending.append(' ');
      boolean continued = line.endsWith("\\");
      pending.append(continued ? line.substring(0, line.length() - 1).strip() : line);
      if (!continued) {
        List<String> words = new ArrayList<>(Arrays.asList(pending.toString().split("\\s+")));
        pending = null;
        words.remove(0);
        if (words.contains("delete")) {
          continue;
        }
        if (String.join(" ", words).matches(".*['\"$`|;&].*")) {
          throw new IllegalArgumentException(
              "a notes command with shell syntax cannot be run here: " + words);
        }
        words.replaceAll(
            w -> w.startsWith("examples/") ? ToolPaths.repoRoot().resolve(w).toString() : w);
        commands.add(List.copyOf(words));
      }
    }
    return commands;
  }

  /** The CniNetworks {@code kubectl apply} said it created or configured in {@code output}. */
  static List<String> appliedNames(List<String> command, String output) {
    List<String> names = new ArrayList<>();
    if (!command.contains("apply")) {
      return names;
    }
    for (String line : output.split("\n")) {
      Matcher m = CREATED.matcher(line.strip());
      if (m.matches()) {
        names.add(m.group(1));
      }
    }
    return names;
  }
}
