/**
 * The `case` arms bash and zsh scripts share: which command a word leads to, and how to
 * complete an option's value or a positional argument. Each shell says how a value completes.
 */
import { acceptedOptions, type CompletionCommand, type ValueCompletion } from "./command-tree.js";
import { quote } from "./script-text.js";

/** The shell code that completes a value, or undefined when nothing can be offered. */
export type CompleteValue = (value: ValueCompletion) => string | undefined;

/** The `case` key for a command path and what follows it: `'inventory list/--status'`. */
export function caseKey(command: CompletionCommand, suffix: string): string {
  return quote(`${command.path.join(" ")}/${suffix}`);
}

/** One arm per subcommand name (aliases too), setting `_petstore_next` to its path. */
export function subcommandArms(command: CompletionCommand): string[] {
  return command.commands.map(
    (sub) =>
      `    ${sub.names.map((name) => caseKey(command, name)).join(" | ")}) _petstore_next=${quote(sub.path.join(" "))} ;;`,
  );
}

/** One arm per option whose value can be completed. */
export function optionValueArms(command: CompletionCommand, complete: CompleteValue): string[] {
  return acceptedOptions(command).flatMap((option) => {
    const action = option.value === undefined ? undefined : complete(option.value);
    if (action === undefined) return [];
    return [`    ${option.names.map((name) => caseKey(command, name)).join(" | ")}) ${action} ;;`];
  });
}

/** One arm per positional argument whose value can be completed (a variadic one matches all). */
export function argumentArms(command: CompletionCommand, complete: CompleteValue): string[] {
  return command.arguments.flatMap((argument, index) => {
    const action = complete(argument.value);
    if (action === undefined) return [];
    const pattern = argument.variadic
      ? `${quote(`${command.path.join(" ")}/`)}*`
      : caseKey(command, String(index));
    return [`    ${pattern}) ${action} ;;`];
  });
}

/**
 * The shell functions both scripts define from those arms: `_petstore_subcommand`,
 * `_petstore_option_value` and `_petstore_argument`.
 */
export function caseFunctions(
  commands: readonly CompletionCommand[],
  complete: CompleteValue,
): string {
  return `# Sets _petstore_next to the path of subcommand $2 of path $1, or to nothing.
_petstore_subcommand() {
  _petstore_next=""
  case "$1/$2" in
${commands.flatMap(subcommandArms).join("\n")}
  esac
}

# Completes the value of option $2 of path $1.
_petstore_option_value() {
  case "$1/$2" in
${commands.flatMap((command) => optionValueArms(command, complete)).join("\n")}
  esac
}

# Completes positional argument number $2 (from 0) of path $1.
_petstore_argument() {
  case "$1/$2" in
${commands.flatMap((command) => argumentArms(command, complete)).join("\n")}
  esac
}`;
}
