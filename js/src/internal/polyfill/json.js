// JSON as Chrome's NaCl manifest reader saw it: base::JSONReader with
// JSON_PARSE_RFC (base/json/json_parser.cc of the Chromium of the NaCl
// years), so that a malformed .nmf gives the page the lastError Chrome gave:
// "manifest JSON parsing failed: Line: L, column: C, <description>".
//
// What that parser did, and this one does the same way:
// - it reads UTF-8 bytes; a leading byte-order mark is skipped;
// - `//` and `/* */` comments count as white space;
// - numbers: an int when they fit an int32 and have no fraction or
//   exponent, else a double (the manifest's `optlevel` must be an int);
// - strings may hold any valid character, control characters included,
//   and the escapes \" \\ \/ \b \f \n \r \t, \v, \xHH and \uXXXX (pairs of
//   surrogates combined);
// - nesting deeper than 200 is an error; a trailing comma is an error;
// - object keys: the last of duplicates wins; iteration is in key order
//   (a std::map), which decides which problem validation reports first;
// - error positions: lines count from 1 and only advance on line breaks
//   between tokens; the column is the byte index minus the index of the
//   last line break seen (so 1-based on the first line, 2-based after),
//   plus the same per-error adjustment the original makes.
//
// Values come back as nodes ({ type, value }) so that ints and doubles
// stay apart; `describe(node)` prints one as base::Value's `operator<<`
// did (JSONWriter, pretty-printed), for the validation messages.

export const JSON_ERRORS = Object.freeze({
  SYNTAX: 'Syntax error.',
  INVALID_ESCAPE: 'Invalid escape sequence.',
  UNEXPECTED_TOKEN: 'Unexpected token.',
  TRAILING_COMMA: 'Trailing comma not allowed.',
  TOO_MUCH_NESTING: 'Too much nesting.',
  DATA_AFTER_ROOT: 'Unexpected data after root element.',
  ENCODING: 'Unsupported encoding. JSON must be UTF-8.',
  UNQUOTED_KEY: 'Dictionary keys must be quoted.',
});

/** The nesting limit (base::JSONReader::kStackMaxDepth). */
const MAX_DEPTH = 200;

/** A parse failure: `message` is "Line: L, column: C, <description>". */
export class JsonError extends Error {
  constructor(description, line, column) {
    super(line || column ? `Line: ${line}, column: ${column}, ${description}` : description);
    this.name = 'JsonError';
    this.description = description;
    this.line = line;
    this.column = column;
  }
}

const T = Object.freeze({
  OBJECT_BEGIN: 1,
  OBJECT_END: 2,
  ARRAY_BEGIN: 3,
  ARRAY_END: 4,
  STRING: 5,
  NUMBER: 6,
  TRUE: 7,
  FALSE: 8,
  NULL: 9,
  COMMA: 10,
  COLON: 11,
  END: 12,
  INVALID: 13,
});

const isDigit = (c) => c >= 0x30 && c <= 0x39;

/** Whether `cp` is a character base::IsValidCharacter accepts. */
function validCharacter(cp) {
  return cp < 0xd800 || (cp >= 0xe000 && cp < 0xfdd0) || (cp > 0xfdef && cp <= 0x10ffff && (cp & 0xfffe) !== 0xfffe);
}

class Parser {
  constructor(bytes) {
    this.s = bytes;
    this.i = 0;
    this.line = 1;
    this.lastLine = 0;
    this.depth = 0;
  }

  fail(description, adjust) {
    throw new JsonError(description, this.line, this.i - this.lastLine + adjust);
  }

  peek(offset = 0) {
    const j = this.i + offset;
    return j < this.s.length ? this.s[j] : -1;
  }

  startsWith(text) {
    if (this.i + text.length > this.s.length) return false;
    for (let k = 0; k < text.length; k++) if (this.s[this.i + k] !== text.charCodeAt(k)) return false;
    return true;
  }

  eatWhitespaceAndComments() {
    for (;;) {
      const c = this.peek();
      if (c === 0x0d || c === 0x0a) {
        this.lastLine = this.i;
        // "\r\n" is one line break.
        if (!(c === 0x0a && this.i > 0 && this.s[this.i - 1] === 0x0d)) this.line++;
        this.i++;
      } else if (c === 0x20 || c === 0x09) {
        this.i++;
      } else if (c === 0x2f) {
        if (!this.eatComment()) return;
      } else {
        return;
      }
    }
  }

  eatComment() {
    if (this.i + 2 > this.s.length) return false;
    const second = this.s[this.i + 1];
    this.i += 2;
    if (second === 0x2f) {
      while (this.i < this.s.length && this.s[this.i] !== 0x0a && this.s[this.i] !== 0x0d) this.i++;
      return true;
    }
    if (second === 0x2a) {
      let previous = 0;
      while (this.i < this.s.length) {
        const c = this.s[this.i];
        if (previous === 0x2a && c === 0x2f) {
          this.i++;
          return true;
        }
        previous = c;
        this.i++;
      }
    }
    // Not a comment (or an unterminated one): the next token is read from here.
    return false;
  }

  nextToken() {
    this.eatWhitespaceAndComments();
    const c = this.peek();
    switch (c) {
      case -1:
        return T.END;
      case 0x7b:
        return T.OBJECT_BEGIN;
      case 0x7d:
        return T.OBJECT_END;
      case 0x5b:
        return T.ARRAY_BEGIN;
      case 0x5d:
        return T.ARRAY_END;
      case 0x22:
        return T.STRING;
      case 0x74:
        return T.TRUE;
      case 0x66:
        return T.FALSE;
      case 0x6e:
        return T.NULL;
      case 0x2c:
        return T.COMMA;
      case 0x3a:
        return T.COLON;
      default:
        return isDigit(c) || c === 0x2d ? T.NUMBER : T.INVALID;
    }
  }

  parseToken(token) {
    switch (token) {
      case T.OBJECT_BEGIN:
        return this.dictionary();
      case T.ARRAY_BEGIN:
        return this.list();
      case T.STRING:
        return { type: 'string', value: this.string() };
      case T.NUMBER:
        return this.number();
      case T.TRUE:
      case T.FALSE:
      case T.NULL:
        return this.literal();
      default:
        return this.fail(JSON_ERRORS.UNEXPECTED_TOKEN, 1);
    }
  }

  enter() {
    this.depth++;
    if (this.depth >= MAX_DEPTH) this.fail(JSON_ERRORS.TOO_MUCH_NESTING, 0);
  }

  dictionary() {
    this.i++; // '{'
    this.enter();
    const entries = new Map();
    let token = this.nextToken();
    while (token !== T.OBJECT_END) {
      if (token !== T.STRING) this.fail(JSON_ERRORS.UNQUOTED_KEY, 1);
      const key = this.string();
      if (this.nextToken() !== T.COLON) this.fail(JSON_ERRORS.SYNTAX, 1);
      this.i++; // ':'
      const value = this.parseToken(this.nextToken());
      entries.delete(key);
      entries.set(key, value);
      token = this.nextToken();
      if (token === T.COMMA) {
        this.i++;
        token = this.nextToken();
        if (token === T.OBJECT_END) this.fail(JSON_ERRORS.TRAILING_COMMA, 1);
      } else if (token !== T.OBJECT_END) {
        this.fail(JSON_ERRORS.SYNTAX, 0);
      }
    }
    this.i++; // '}'
    this.depth--;
    // std::map order: sorted by key (UTF-8 byte order; code unit order here).
    const sorted = new Map([...entries.keys()].sort().map((k) => [k, entries.get(k)]));
    return { type: 'dict', value: sorted };
  }

  list() {
    this.i++; // '['
    this.enter();
    const items = [];
    let token = this.nextToken();
    while (token !== T.ARRAY_END) {
      items.push(this.parseToken(token));
      token = this.nextToken();
      if (token === T.COMMA) {
        this.i++;
        token = this.nextToken();
        if (token === T.ARRAY_END) this.fail(JSON_ERRORS.TRAILING_COMMA, 1);
      } else if (token !== T.ARRAY_END) {
        this.fail(JSON_ERRORS.SYNTAX, 1);
      }
    }
    this.i++; // ']'
    this.depth--;
    return { type: 'list', value: items };
  }

  /** One UTF-8 character at the cursor: its code point, or -1 if invalid. Advances past it. */
  utf8() {
    const s = this.s;
    const b0 = s[this.i];
    if (b0 < 0x80) {
      this.i++;
      return b0;
    }
    let need;
    let cp;
    let min;
    if (b0 >= 0xc2 && b0 <= 0xdf) [need, cp, min] = [1, b0 & 0x1f, 0x80];
    else if (b0 >= 0xe0 && b0 <= 0xef) [need, cp, min] = [2, b0 & 0x0f, 0x800];
    else if (b0 >= 0xf0 && b0 <= 0xf4) [need, cp, min] = [3, b0 & 0x07, 0x10000];
    else return -1;
    for (let k = 1; k <= need; k++) {
      const b = s[this.i + k];
      if (b === undefined || (b & 0xc0) !== 0x80) return -1;
      cp = (cp << 6) | (b & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
    this.i += need + 1;
    return cp;
  }

  hex(count) {
    if (this.i + count > this.s.length) return -1;
    let v = 0;
    for (let k = 0; k < count; k++) {
      const c = this.s[this.i + k];
      const d = isDigit(c) ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    this.i += count;
    return v;
  }

  /** \uXXXX (the cursor after the 'u'): a code point, or -1. */
  utf16Escape() {
    const high = this.hex(4);
    if (high < 0) return -1;
    if (high >= 0xd800 && high <= 0xdfff) {
      if (high > 0xdbff) return -1;
      if (!this.startsWith('\\u')) return -1;
      this.i += 2;
      const low = this.hex(4);
      if (low < 0xdc00 || low > 0xdfff) return -1;
      const cp = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
      return validCharacter(cp) ? cp : -1;
    }
    return validCharacter(high) ? high : -1;
  }

  string() {
    this.i++; // '"'
    let out = '';
    while (this.i < this.s.length) {
      const at = this.i;
      const cp = this.utf8();
      if (cp < 0 || !validCharacter(cp)) {
        this.i = at;
        this.fail(JSON_ERRORS.ENCODING, 1);
      }
      if (cp === 0x22) return out;
      if (cp !== 0x5c) {
        out += String.fromCodePoint(cp);
        continue;
      }
      if (this.i >= this.s.length) {
        this.i = at;
        this.fail(JSON_ERRORS.INVALID_ESCAPE, 0);
      }
      const e = this.s[this.i++];
      switch (e) {
        case 0x78: {
          // \xHH: not JSON, accepted by the old parser.
          const v = this.hex(2);
          if (v < 0 || !validCharacter(v)) this.fail(JSON_ERRORS.INVALID_ESCAPE, -2);
          out += String.fromCodePoint(v);
          break;
        }
        case 0x75: {
          const v = this.utf16Escape();
          if (v < 0) this.fail(JSON_ERRORS.INVALID_ESCAPE, 0);
          out += String.fromCodePoint(v);
          break;
        }
        case 0x22:
          out += '"';
          break;
        case 0x5c:
          out += '\\';
          break;
        case 0x2f:
          out += '/';
          break;
        case 0x62:
          out += '\b';
          break;
        case 0x66:
          out += '\f';
          break;
        case 0x6e:
          out += '\n';
          break;
        case 0x72:
          out += '\r';
          break;
        case 0x74:
          out += '\t';
          break;
        case 0x76:
          out += '\v';
          break;
        default:
          this.fail(JSON_ERRORS.INVALID_ESCAPE, 0);
      }
    }
    return this.fail(JSON_ERRORS.SYNTAX, 0);
  }

  /** Digits at the cursor; false when none, or a leading zero where not allowed. */
  digits(allowLeadingZeros) {
    const start = this.i;
    while (isDigit(this.peek())) this.i++;
    const len = this.i - start;
    if (len === 0) return false;
    return allowLeadingZeros || len === 1 || this.s[start] !== 0x30;
  }

  number() {
    const start = this.i;
    if (this.peek() === 0x2d) this.i++;
    if (!this.digits(false)) this.fail(JSON_ERRORS.SYNTAX, 1);
    let fraction = false;
    if (this.peek() === 0x2e) {
      this.i++;
      if (!this.digits(true)) this.fail(JSON_ERRORS.SYNTAX, 1);
      fraction = true;
    }
    const c = this.peek();
    if (c === 0x65 || c === 0x45) {
      this.i++;
      if (this.peek() === 0x2d || this.peek() === 0x2b) this.i++;
      if (!this.digits(true)) this.fail(JSON_ERRORS.SYNTAX, 1);
      fraction = true;
    }
    const end = this.i;
    switch (this.nextToken()) {
      case T.OBJECT_END:
      case T.ARRAY_END:
      case T.COMMA:
      case T.END:
        break;
      default:
        this.fail(JSON_ERRORS.SYNTAX, 1);
    }
    this.i = end;
    const text = String.fromCharCode(...this.s.subarray(start, end));
    const v = Number(text);
    if (!fraction && Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff) return { type: 'int', value: v };
    // A number that is neither (too large to be finite) fails with no message, as in Chrome.
    if (!Number.isFinite(v)) throw new JsonError('', 0, 0);
    return { type: 'double', value: v };
  }

  literal() {
    for (const [text, node] of [
      ['true', { type: 'bool', value: true }],
      ['false', { type: 'bool', value: false }],
      ['null', { type: 'null', value: null }],
    ]) {
      if (this.startsWith(text)) {
        this.i += text.length;
        return node;
      }
    }
    return this.fail(JSON_ERRORS.SYNTAX, 1);
  }
}

/** Parses UTF-8 JSON bytes into a node; throws JsonError. */
export function parseJson(bytes) {
  const p = new Parser(bytes);
  if (p.startsWith('\xef\xbb\xbf')) p.i = 3;
  const root = p.parseToken(p.nextToken());
  if (p.nextToken() !== T.END) p.fail(JSON_ERRORS.DATA_AFTER_ROOT, 1);
  return root;
}

/** A node as a plain JS value. */
export function toJs(node) {
  switch (node.type) {
    case 'dict':
      return Object.fromEntries([...node.value].map(([k, v]) => [k, toJs(v)]));
    case 'list':
      return node.value.map(toJs);
    default:
      return node.value;
  }
}

/** base/json/string_escape.cc EscapeJSONString(…, put_in_quotes = true). */
function quote(str) {
  let out = '"';
  for (const ch of str) {
    const cp = ch.codePointAt(0);
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '<':
        out += '\\u003C';
        break;
      default:
        out += cp < 0x20 || cp === 0x2028 || cp === 0x2029 ? `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}` : ch;
    }
  }
  return `${out}"`;
}

function write(node, depth) {
  switch (node.type) {
    case 'null':
      return 'null';
    case 'bool':
      return node.value ? 'true' : 'false';
    case 'int':
      return String(node.value);
    case 'double': {
      let real = String(node.value);
      if (!/[.eE]/.test(real)) real += '.0';
      return real;
    }
    case 'string':
      return quote(node.value);
    case 'list':
      return `[ ${node.value.map((v) => write(v, depth)).join(', ')} ]`;
    case 'dict': {
      const pad = (d) => ' '.repeat(3 * d);
      const items = [...node.value].map(([k, v]) => `${pad(depth + 1)}${quote(k)}: ${write(v, depth + 1)}`);
      return `{\n${items.join(',\n')}\n${pad(depth)}}`;
    }
    default:
      return '';
  }
}

/** A node as `std::ostream << base::Value` printed it: pretty JSON and a line break. */
export function describe(node) {
  return `${write(node, 0)}\n`;
}
