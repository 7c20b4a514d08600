// The error every package function throws for bad input (index.d.ts).

export class PexeError extends Error {
  constructor(message, { kind = 'translate', diagnostics = [], listing, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'PexeError';
    this.kind = kind;
    this.diagnostics = diagnostics;
    if (listing !== undefined) this.listing = listing;
  }
}
