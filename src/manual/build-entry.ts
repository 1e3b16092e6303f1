/**
 * What scripts/ load from src/manual (bundled by scripts/load-manual.js, as Node 20 cannot
 * import TypeScript): the program to document, the man page, the guides' option and exit-code blocks.
 */
export { VERSION } from "../program/version.js";
export { documentedProgram } from "./documented-program.js";
export { guideFiles } from "./guide-files.js";
export { manPage } from "./man-page.js";
export { renderOptionBlocks } from "./option-blocks.js";
export { renderExitCodeBlocks } from "./exit-code-tables.js";
