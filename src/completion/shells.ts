/** The shells `petstore completion` writes scripts for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

export type Shell = (typeof SHELLS)[number];
