// `node --import ./record-modules.js`: appends the URL of every module the process loads
// to the file named by PETSTORE_TEST_MODULE_LOG, so a test can see what a command loaded.
import { register } from "node:module";

register("./record-modules-hooks.js", import.meta.url);
