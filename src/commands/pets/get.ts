/** `petstore pets get <petId>`: the deprecated pet lookup. */
import { Command } from "commander";
import { chooseRecordFormat } from "../../output/format.js";
import { writePet } from "../../output/pet.js";
import { petIdArgument } from "../../program/arguments.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export interface PetsGetOptions {
  json?: boolean | undefined;
}

/** Validates the id locally, fetches the pet and prints it. */
export async function runPetsGet(
  petIdText: string,
  options: PetsGetOptions,
  context: CommandContext,
): Promise<void> {
  const petId = petIdArgument(petIdText);
  const format = chooseRecordFormat(options, context.io);
  const client = await context.apiClient();
  const pet = await client.getPet(petId);
  writePet(pet, format, context.io);
}

/** Defines `pets get`. */
export function petsGetCommand(factory: Factory): Command {
  return new Command("get")
    .description("show one pet (GET /pets/{petId}, deprecated by the service)")
    .argument("<petId>", "the pet, a whole number from 1 to 9223372036854775807")
    .option("--json", "print the pet as a JSON object")
    .addHelpText(
      "after",
      `
The service marks this operation deprecated; the CLI warns on stderr while it does.
Piped: one tab-separated line (id, name, status, category, tags, photoUrls).

Examples:
  petstore pets get 42
  petstore pets get 42 --json | jq -r .name`,
    )
    .action(async (petId: string, options: PetsGetOptions, command: Command) => {
      await runPetsGet(petId, options, factory.context(readGlobalOptions(command)));
    });
}
