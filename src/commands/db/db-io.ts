/** What the db verbs take from the process (a file of its own: index.ts imports the verbs). */
export interface DbIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Where to draw a progress bar (stderr, when it is a terminal); undefined for none. */
  progress?: NodeJS.WritableStream | undefined;
}
