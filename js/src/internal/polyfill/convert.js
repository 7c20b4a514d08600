// Page → plugin values, converted at the moment `postMessage` is called,
// the way Chrome's V8VarConverter did (nacl-embed-facts.md §3), into a
// value the structured clone can carry to the plugin's host Worker
// (which then makes vars of it: pepper/vars.js):
//
//   undefined, null, booleans, strings      as they are (boxed ones unboxed)
//   numbers                                 as they are (int32 or double there)
//   ArrayBuffer                             copied
//   Array                                   element by element; holes become
//                                           undefined, trailing holes shorten it
//   any other object                        a dictionary of its own enumerable
//                                           string keys (data properties only):
//                                           a typed array arrives as {"0": …},
//                                           a Date or a function as {}
//   symbols, bigints                        no var: dropped (the message, at
//                                           top level), as Chrome silently did
//
// A value with a cycle cannot be converted: `convertForPlugin` throws
// `ConversionError` and the message is dropped with Chrome's console text.

export const CONVERSION_FAILED =
  'Failed to convert a PostMessage argument from a JavaScript value to a PP_Var. It may have cycles or be of an unsupported type.';

export class ConversionError extends Error {
  constructor() {
    super(CONVERSION_FAILED);
    this.name = 'ConversionError';
  }
}

/** Marks "no var for this value". */
const SKIP = Symbol('skip');

function convert(value, seen) {
  switch (typeof value) {
    case 'undefined':
    case 'boolean':
    case 'number':
    case 'string':
      return value;
    case 'symbol':
    case 'bigint':
      return SKIP;
    default:
      break;
  }
  if (value === null) return null;
  if (value instanceof Boolean || value instanceof Number || value instanceof String) return value.valueOf();
  if (value instanceof ArrayBuffer) return value.slice(0);
  if (seen.has(value)) throw new ConversionError();
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const out = [];
      for (let i = 0; i < value.length; i++) {
        if (!Object.hasOwn(value, i)) continue;
        const v = convert(value[i], seen);
        if (v !== SKIP) out[i] = v;
      }
      // Holes inside the array are undefined there; trailing holes are gone.
      for (let i = 0; i < out.length; i++) if (!Object.hasOwn(out, i)) out[i] = undefined;
      return out;
    }
    const out = {};
    for (const key of Object.keys(value)) {
      const d = Object.getOwnPropertyDescriptor(value, key);
      if (!d || !('value' in d)) continue;
      const v = convert(d.value, seen);
      if (v !== SKIP) out[key] = v;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * The clone-safe form of `value`, or `undefined` plus `{ dropped: true }`
 * semantics for values with no var (returns `{ ok: false }` then).
 * Throws ConversionError for cycles.
 */
export function convertForPlugin(value) {
  const v = convert(value, new Set());
  return v === SKIP ? { ok: false } : { ok: true, value: v };
}
