// @ts-check
import eslint from "@eslint/js";
import importPlugin from "eslint-plugin-import";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * The layering of docs/architecture.md, enforced: the API client and the server meet only in
 * src/api; the server imports nothing of the CLI; output and apply never reach into the
 * program, the commands or the server. `petstore serve` (src/commands/serve.ts) and the `db`
 * verbs (src/commands/db/, which work on the server's store files) are the command files that
 * may reach the server, and they load it lazily.
 */
const LAYERS = [
  {
    target: "./src/api",
    from: "./src",
    except: ["./api"],
    message: "src/api is what client and server share: it imports nothing else of the project.",
  },
  {
    target: "./src/client",
    from: ["./src/server", "./src/commands", "./src/program", "./src/output", "./src/apply"],
    message: "The API client talks HTTP only: it never imports the server, commands or output.",
  },
  {
    target: "./src/server",
    from: "./src",
    except: ["./api", "./server"],
    message: "The server imports nothing of the CLI: share through src/api.",
  },
  {
    target: ["./src/output", "./src/apply"],
    from: ["./src/server", "./src/commands", "./src/program"],
    message: "output/ and apply/ are used by commands, never the other way round.",
  },
  {
    target: "./src/program",
    from: "./src/commands",
    message:
      "program/ is the plumbing commands use: it imports no command (the root command is commands/root.ts).",
  },
  {
    target: "./src/apply",
    from: "./src/output",
    message: "apply/ carries rows out; output/ prints them: words both use are in src/text.",
  },
  {
    target: [
      "./src/program",
      "./src/commands/inventory",
      "./src/commands/pets",
      "./src/commands/orders",
      "./src/commands/keys",
      "./src/commands/completion.ts",
      "./src/cli.ts",
      "./src/main.ts",
    ],
    from: "./src/server",
    message:
      "Client commands never load server code (only commands/serve.ts and commands/db/ reach it, lazily).",
  },
];

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/"] },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Store and route implementations are async to honour async interfaces
      // (a PostgreSQL store awaits); a synchronous body is fine there.
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
    },
  },
  {
    files: ["src/**/*.ts"],
    plugins: { import: importPlugin },
    settings: {
      "import/extensions": [".ts", ".js"],
      "import/parsers": { "@typescript-eslint/parser": [".ts"] },
      // Maps the `.js` of ESM imports to the `.ts` sources, as TypeScript does.
      "import/resolver": { typescript: { project: "./tsconfig.json" } },
    },
    rules: {
      "import/no-cycle": "error",
      "import/no-restricted-paths": ["error", { zones: LAYERS }],
    },
  },
  {
    files: ["**/*.js"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // better-sqlite3 12 aborts Node.js 24 when the collector takes one of its native objects
    // (store/sqlite/connection.ts keeps every statement); a statement's iterator cannot be kept that way.
    files: ["src/server/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name='iterate']",
          message:
            "a better-sqlite3 iterator aborts Node.js 24 when it is collected: use all() (see src/server/store/sqlite/connection.ts)",
        },
      ],
    },
  },
  {
    // The executable is CommonJS (bin/package.json): see the comment at its top.
    files: ["bin/petstore.js"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
