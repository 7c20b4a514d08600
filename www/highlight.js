// Syntax colouring for PNaClAsm and WebAssembly text: a string in, escaped
// HTML with <span class> tokens out. Only ever applied to what is on screen
// (virtual rows) or to one function, so a regex tokenizer is fast enough.

const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
export const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ESC[c]);

const ASM_KEYWORDS = new Set(
  ('module version abbreviations types globals valuesymtab function constants declare define ' +
    'internal external blocks count label align to br ret call tail load store alloca phi icmp fcmp ' +
    'switch default unreachable select extractelement insertelement add sub mul udiv sdiv urem srem ' +
    'shl lshr ashr and or xor fadd fsub fmul fdiv frem trunc zext sext fptoui fptosi uitofp sitofp ' +
    'fptrunc fpext bitcast eq ne ugt uge ult ule sgt sge slt sle false oeq ogt oge olt ole one ord ' +
    'ueq une uno true undef zerofill reloc var const abbrev fixed vbr array char6 forward declare').split(' '),
);
const TYPES = /^(i1|i8|i16|i32|i64|float|double|void)$/;

const ASM_TOKEN =
  /(\/\/.*$)|("(?:[^"\\]|\\.)*")|([%@][a-z]+\d+)|([A-Za-z_][\w.]*)|(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)|([{}])/g;

/** PNaClAsm (one line or many) → HTML. */
export function highlightAsm(text) {
  let out = '';
  let last = 0;
  ASM_TOKEN.lastIndex = 0;
  for (let m; (m = ASM_TOKEN.exec(text)); ) {
    out += escapeHtml(text.slice(last, m.index));
    const s = escapeHtml(m[0]);
    if (m[1]) out += `<span class="cm">${s}</span>`;
    else if (m[2]) out += `<span class="s">${s}</span>`;
    else if (m[3]) out += `<span class="${m[3][0] === '%' ? 'v' : 'g'}">${s}</span>`;
    else if (m[4]) {
      if (TYPES.test(m[4])) out += `<span class="t">${s}</span>`;
      else if (ASM_KEYWORDS.has(m[4])) out += `<span class="k">${s}</span>`;
      else out += s;
    } else if (m[5]) out += `<span class="n">${s}</span>`;
    else out += `<span class="bl">${s}</span>`;
    last = m.index + m[0].length;
  }
  return out + escapeHtml(text.slice(last));
}

const WAT_TOKEN =
  /(;;.*$)|(\(;[\s\S]*?;\))|("(?:[^"\\]|\\.)*")|(\$[\w.$@:+-]+)|\b(i32|i64|f32|f64|v128|funcref|externref)\b(?![.\w])|([a-z][\w]*(?:\.[\w]+)*)|(-?(?:0x[\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?))/gm;
const WAT_STRUCT = new Set(['func', 'param', 'result', 'local', 'type', 'module', 'import', 'export', 'table', 'memory', 'global', 'elem', 'data', 'mut', 'shared', 'offset', 'tag']);

/** WebAssembly text → HTML. */
export function highlightWat(text) {
  let out = '';
  let last = 0;
  WAT_TOKEN.lastIndex = 0;
  for (let m; (m = WAT_TOKEN.exec(text)); ) {
    out += escapeHtml(text.slice(last, m.index));
    const s = escapeHtml(m[0]);
    if (m[1] || m[2]) out += `<span class="cm">${s}</span>`;
    else if (m[3]) out += `<span class="s">${s}</span>`;
    else if (m[4]) out += `<span class="v">${s}</span>`;
    else if (m[5]) out += `<span class="t">${s}</span>`;
    else if (m[6]) out += WAT_STRUCT.has(m[6]) ? `<span class="bl">${s}</span>` : `<span class="k">${s}</span>`;
    else out += `<span class="n">${s}</span>`;
    last = m.index + m[0].length;
  }
  return out + escapeHtml(text.slice(last));
}
