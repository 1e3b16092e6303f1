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
