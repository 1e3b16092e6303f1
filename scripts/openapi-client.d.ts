/** See openapi-client.js. */
export declare const CLIENT_PATHS_FILE: string;
/** The text of CLIENT_PATHS_FILE for `document`. */
export declare function clientPathsSource(document: object): Promise<string>;
