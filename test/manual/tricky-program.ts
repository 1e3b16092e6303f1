/** A program whose texts are full of what roff would read as markup, for the escaping tests. */
import { Command } from "commander";

/** Its descriptions, prose and examples start with dots and quotes, and hold backslashes. */
export function trickyProgram(): Command {
  return new Command("petstore")
    .description("Tricky texts")
    .addHelpText("after", "\nExit codes:\n  0  ok\n  2  usage\n")
    .addCommand(
      new Command("dots")
        .description(".starts with a dot, like a roff request")
        .argument("<file>", "'quoted' at the start, like a roff request too")
        .option("--path <dir>", "a path such as C:\\Temp\\new or \\fB, which is no font")
        .addHelpText(
          "after",
          "\n.also a dot at the start of a line of prose\n\nExamples:\n  petstore dots --path '.\\x' `pwd` ~/a^b\n  .dotted example",
        ),
    );
}
