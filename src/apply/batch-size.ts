/** Changes per batch request of a run that is not atomic (`apply`, `adjust --file`). */
export const BATCH_SIZE = 1_000;
