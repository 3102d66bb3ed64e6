package dev.cnioperator.testkit;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What a program's picocli commands fail to tell their user: every option and parameter of every
 * command needs a description; one read from an environment variable names it; one with a default
 * says {@code default: ${DEFAULT-VALUE}} and {@code --help} shows that value; one without says what
 * unset means ({@code default: <words>}) or that it is required.
 */
public final class OptionDocs {
  private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)");

  /** {@code :-} followed by a literal, not by another variable. */
  private static final Pattern LITERAL_FALLBACK = Pattern.compile(":-[^$}]");

  private OptionDocs() {}

  /**
   * One line per problem, naming the command and the option, for {@code root} and all its
   * subcommands; empty when every option is documented.
   */
  public static List<String> problems(CommandLine root) {
    List<String> problems = new ArrayList<>();
    collect(root, problems);
    return problems;
  }

  private static void collect(CommandLine line, List<String> problems) {
    CommandSpec spec = line.getCommandSpec();
    String usage = usage(line).replaceAll("\\s+", " ");
    // The raw annotation texts: the variables as written, not as this process resolves them.
    line.setInterpolateVariables(false);
    List<OptionSpec> showingDefault = new ArrayList<>();
    List<ArgSpec> args = new ArrayList<>(spec.options());
    args.addAll(spec.positionalParameters());
    for (ArgSpec arg : args) {
      if (arg instanceof OptionSpec o && (o.usageHelp() || o.versionHelp())) {
        continue;
      }
      String name = spec.qualifiedName() + " " + name(arg);
      String description = String.join(" ", arg.description());
      if (description.isBlank()) {
        problems.add(name + ": no description");
        continue;
      }
      String rawDefault = arg.defaultValue() == null ? "" : arg.defaultValue();
      Matcher env = ENV.matcher(rawDefault);
      while (env.find()) {
        if (!description.contains(env.group(1))) {
          problems.add(name + ": reads " + env.group(1) + " but its description does not say so");
        }
      }
      if (!(arg instanceof OptionSpec)) {
        continue;
      }
      if (LITERAL_FALLBACK.matcher(rawDefault).find()) {
        if (!description.contains("default: ${DEFAULT-VALUE}")) {
          problems.add(name + ": has a default but no 'default: ${DEFAULT-VALUE}'");
        } else {
          showingDefault.add((OptionSpec) arg);
        }
      } else if (!description.contains("default:") && !description.contains("required")) {
        problems.add(name + ": says neither what unset means ('default: ...') nor 'required'");
      }
    }
    line.setInterpolateVariables(true);
    for (OptionSpec o : showingDefault) {
      String shown = o.defaultValue();
      if (!usage.contains("default: " + shown)) {
        problems.add(spec.qualifiedName() + " " + name(o) + ": --help does not show " + shown);
      }
    }
    for (CommandLine sub : line.getSubcommands().values()) {
      collect(sub, problems);
    }
  }

  /** What {@code --help} prints, or the usage message of a command without that option. */
  private static String usage(CommandLine line) {
    if (line.getCommandSpec().optionsMap().containsKey("--help")) {
      StringWriter out = new StringWriter();
      line.setOut(new PrintWriter(out));
      line.execute("--help");
      return out.toString();
    }
    return line.getUsageMessage();
  }

  private static String name(ArgSpec arg) {
    return arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel();
  }
}
