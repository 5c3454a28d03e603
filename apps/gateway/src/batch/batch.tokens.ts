/** The clock schedule changes are computed with (`Clock` of @trawl/scheduling); tests may pass their own. */
export const BATCH_CLOCK = Symbol('BATCH_CLOCK');
