/** A small program whose option texts hold Markdown's markup, for the option-table tests. */
import { Command, Option } from "commander";

/** `petstore` with global options and one verb, `shop count`. */
export function shopProgram(): Command {
  return new Command("petstore")
    .helpOption("-h, --help", "show help for a command")
    .addOption(new Option("--env <env>", "where to go").choices(["production", "staging"]))
    .option("--verbose", "say more")
    .addCommand(
      new Command("shop").description("the shop").addCommand(
        new Command("count")
          .description("count the shelves")
          .option("--json", "print JSON")
          .addOption(new Option("--limit <n>", "at most n rows").default(20))
          .option(
            "--tag <tag>",
            "rows whose tags hold a | or <tags>, *stars*, `ticks`, [links], a \\ backslash, " +
              "snake_case and _emphasis_ & ~tildes~",
          ),
      ),
    );
}
