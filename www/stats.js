// Statistics of a pexe from its listing alone, for when the package has no
// stats(): per block kind and per record code, counts, bits (a record owns
// the bits up to the next record) and how many were abbreviated; the
// function blocks by size. The bit counts equal `pexe stats`'s.

const bitPos = (bit) => `${Math.floor(bit / 8)}:${bit % 8}`;

/** Record names by block id and code, as pnacl-bcanalyzer prints them (for the listing-based statistics). */
const RECORD_NAMES = {
  0: { 1: 'SETBID', 2: 'BLOCKNAME', 3: 'SETRECORDNAME' },
  8: { 1: 'VERSION', 2: 'TRIPLE', 3: 'DATALAYOUT', 4: 'ASM', 5: 'SECTIONNAME', 6: 'DEPLIB', 7: 'GLOBALVAR', 8: 'FUNCTION', 9: 'ALIAS', 10: 'PURGEVALS', 11: 'GCNAME' },
  17: { 1: 'NUMENTRY', 2: 'VOID', 3: 'FLOAT', 4: 'DOUBLE', 5: 'LABEL', 7: 'INTEGER', 8: 'POINTER', 12: 'VECTOR', 21: 'FUNCTION' },
  19: { 0: 'VAR', 1: 'COMPOUND', 2: 'ZEROFILL', 3: 'DATA', 4: 'RELOC', 5: 'COUNT' },
  14: { 1: 'ENTRY', 2: 'BBENTRY' },
  11: { 1: 'SETTYPE', 2: 'NULL', 3: 'UNDEF', 4: 'INTEGER', 6: 'FLOAT' },
  12: {
    1: 'DECLAREBLOCKS', 2: 'INST_BINOP', 3: 'INST_CAST', 4: 'INST_GEP', 5: 'INST_SELECT', 6: 'INST_EXTRACTELT',
    7: 'INST_INSERTELT', 8: 'INST_SHUFFLEVEC', 9: 'INST_CMP', 10: 'INST_RET', 11: 'INST_BR', 12: 'INST_SWITCH',
    13: 'INST_INVOKE', 15: 'INST_UNREACHABLE', 16: 'INST_PHI', 19: 'INST_ALLOCA', 20: 'INST_LOAD', 23: 'INST_VAARG',
    24: 'INST_STORE', 26: 'INST_EXTRACTVAL', 27: 'INST_INSERTVAL', 28: 'INST_CMP2', 29: 'INST_VSELECT',
    30: 'INST_INBOUNDS_GEP', 31: 'INST_INDIRECTBR', 33: 'DEBUG_LOC_AGAIN', 34: 'INST_CALL', 35: 'DEBUG_LOC',
    36: 'INST_FENCE', 37: 'INST_CMPXCHG', 38: 'INST_ATOMICRMW', 39: 'INST_RESUME', 40: 'INST_LANDINGPAD',
    41: 'INST_LOADATOMIC', 42: 'INST_STOREATOMIC', 43: 'FORWARDTYPEREF', 44: 'INST_CALL_INDIRECT',
  },
};

/**
 * Statistics from the listing alone (used when the package has no stats()):
 * a record owns the bits up to the next positioned line; blocks from the tree.
 */
export function statsFromListing(l, summary) {
  const n = l.lineStarts.length - 1;
  const fileBits = (summary?.size ?? 0) * 8;
  const byBlock = new Map();
  const entry = (id, name) => {
    if (!byBlock.has(id)) byBlock.set(id, { blockId: id, name, count: 0, bits: 0, records: new Map() });
    return byBlock.get(id);
  };
  // Which block each line is in: blocks come in enter order, so inner ones overwrite outer ones.
  const lineBlock = new Int32Array(n).fill(-1);
  l.blocks.forEach((b, bi) => lineBlock.fill(bi, b.line, b.endLine + 1));
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const pos = l.linePos[i];
    if (pos === prev || pos < 0) continue;
    prev = pos;
    let j = i + 1;
    while (j < n && l.linePos[j] === pos) j++;
    const next = j < n ? l.linePos[j] : fileBits;
    const text = l.text.slice(l.lineStarts[i], l.lineStarts[i + 1]);
    const m = /\|\s*(\d+): <(\d+)/.exec(text);
    if (!m) continue;
    const abbrev = Number(m[1]);
    const code = Number(m[2]);
    if (code >= 65532) continue;
    const bi = lineBlock[i];
    const b = bi >= 0 ? l.blocks[bi] : null;
    const id = b ? b.id : -1;
    const bs = entry(id, b?.name ?? 'header');
    if (!bs.records.has(code)) {
      bs.records.set(code, { code, name: RECORD_NAMES[id]?.[code] ?? 'unknown', count: 0, bits: 0, abbreviated: 0 });
    }
    const r = bs.records.get(code);
    r.count++;
    r.bits += next - pos;
    if (abbrev >= 4) r.abbreviated++;
  }
  for (const b of l.blocks) {
    const bs = entry(b.id, b.name);
    bs.count++;
    bs.bits += b.endBit - b.bit;
  }
  const blocks = [...byBlock.values()]
    .filter((b) => b.blockId >= 0)
    .map((b) => ({ ...b, records: [...b.records.values()] }));
  const functions = l.blocks
    .filter((b) => b.id === 12)
    .map((b, index) => ({ index, func: b.fn, name: b.fn != null ? summary.functions[b.fn]?.name ?? null : null, bits: b.endBit - b.bit, pos: bitPos(b.bit) }));
  return { fileBits, headerBits: (summary?.header?.size ?? 0) * 8, blocks, functions, fromListing: true };
}

