//! Text → statements: splits listing columns, joins wrapped records, reads numbers.
//!
//! A *statement* is one record as written: an optional abbreviation index,
//! the values (code first), the line it starts on and, when the line has a
//! position column, the bit position the listing claims for it. What the
//! values mean (header, enter, exit, abbreviation, record) is decided by the
//! caller; this layer only knows the two surface forms:
//!
//! ```text
//! [N:] <v, v, ...>     listing form, may wrap over lines
//! v, v, ...;           textual bitcode form (pnacl-llvm's record text)
//! ```

use super::AsmError;
use crate::pos::BitPos;

/// One record as written in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Statement {
    /// 1-based line where the record starts.
    pub line: usize,
    /// Position column of that line, if it had one.
    pub pos: Option<BitPos>,
    /// `N:` before `<`, in the listing form.
    pub index: Option<u64>,
    /// Code first, then operands.
    pub values: Vec<u64>,
}

/// Where the statement being read stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between statements.
    Idle,
    /// Read one number; `:` makes it an index, `,`/`;` a textual record.
    First,
    /// Read `N:`; `<` must follow.
    AfterIndex,
    /// Inside `<...>`, a value must come next (or `>` if none yet).
    ListValue,
    /// Inside `<...>`, after a value: `,` or `>`.
    ListAfter,
    /// Textual form, after `,`: a value must come next.
    TextValue,
    /// Textual form, after a value: `,` or `;`.
    TextAfter,
}

/// Accumulates tokens into statements across lines.
struct Reader<'f> {
    state: State,
    current: Statement,
    emit: &'f mut dyn FnMut(&Statement) -> Result<(), AsmError>,
}

fn err(line: usize, message: impl Into<String>) -> AsmError {
    AsmError { line, message: message.into() }
}

/// Reads every statement of `text` in order, handing each to `emit`.
pub(crate) fn parse(text: &str, emit: &mut dyn FnMut(&Statement) -> Result<(), AsmError>) -> Result<(), AsmError> {
    let mut r = Reader {
        state: State::Idle,
        current: Statement { line: 0, pos: None, index: None, values: Vec::new() },
        emit,
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let (pos, records) = split_columns(raw, line)?;
        if pos.is_some() && r.state != State::Idle {
            return Err(err(
                line,
                format!("a new position starts here, but the record from line {} is not finished", r.current.line),
            ));
        }
        let mut pos = pos;
        r.line_tokens(records, line, &mut pos)?;
        if let Some(p) = pos {
            return Err(err(line, format!("position {p} is not followed by a record on its line")));
        }
    }
    match r.state {
        State::Idle => Ok(()),
        State::First | State::TextValue | State::TextAfter => {
            Err(err(r.current.line, "record is not finished: ';' is missing"))
        }
        State::AfterIndex | State::ListValue | State::ListAfter => {
            Err(err(r.current.line, "record is not finished: '>' is missing"))
        }
    }
}

/// Splits a listing line into its position (if any) and its records column.
///
/// `pos|records|asm`, `pos|records`, ` |continuation|...` and plain `records`
/// (optionally followed by `|asm`) are all accepted. The first field is a
/// position column when it is blank or reads `B:N`.
fn split_columns(raw: &str, line: usize) -> Result<(Option<BitPos>, &str), AsmError> {
    let mut fields = raw.splitn(3, '|');
    let first = fields.next().unwrap_or("");
    let Some(second) = fields.next() else {
        return Ok((None, raw));
    };
    let head = first.trim();
    if head.is_empty() {
        return Ok((None, second));
    }
    match parse_position(head, line)? {
        Some(pos) => Ok((Some(pos), second)),
        // Not a position: the line is `records|asm`.
        None => Ok((None, first)),
    }
}

/// `B:N` → bit `B*8+N`. `None` when the text is not shaped like a position.
fn parse_position(s: &str, line: usize) -> Result<Option<BitPos>, AsmError> {
    let Some((b, n)) = s.split_once(':') else { return Ok(None) };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    if !digits(b) || !digits(n) {
        return Ok(None);
    }
    let bad = || err(line, format!("position {s} is out of range"));
    let byte: u64 = b.parse().map_err(|_| bad())?;
    let bit: u64 = n.parse().map_err(|_| bad())?;
    if bit >= 8 {
        return Err(err(line, format!("position {s}: the bit number must be below 8")));
    }
    let bits = byte.checked_mul(8).and_then(|x| x.checked_add(bit)).ok_or_else(bad)?;
    Ok(Some(BitPos(bits)))
}

/// One token of the records column.
enum Token {
    Number(u64),
    Colon,
    Open,
    Close,
    Comma,
    Semicolon,
}

impl Reader<'_> {
    /// Feeds the tokens of one line's records column.
    fn line_tokens(&mut self, s: &str, line: usize, pos: &mut Option<BitPos>) -> Result<(), AsmError> {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            let token = match c {
                b' ' | b'\t' | b'\r' => {
                    i += 1;
                    continue;
                }
                // A comment runs to the end of the line.
                b'#' => break,
                b':' => Token::Colon,
                b'<' => Token::Open,
                b'>' => Token::Close,
                b',' => Token::Comma,
                b';' => Token::Semicolon,
                _ if c.is_ascii_alphanumeric() || c == b'_' => {
                    let start = i;
                    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                        i += 1;
                    }
                    let word = &s[start..i];
                    let n = parse_number(word, line)?;
                    self.token(Token::Number(n), line, pos)?;
                    continue;
                }
                b'-' => return Err(err(line, "negative numbers are not allowed: records hold unsigned values")),
                _ => {
                    let ch = s[i..].chars().next().unwrap_or('?');
                    return Err(err(line, format!("unexpected character {ch:?}")));
                }
            };
            i += 1;
            self.token(token, line, pos)?;
        }
        Ok(())
    }

    fn token(&mut self, t: Token, line: usize, pos: &mut Option<BitPos>) -> Result<(), AsmError> {
        use State::*;
        match (self.state, t) {
            (Idle, t) => {
                // Reuse the values buffer: one allocation for the whole text.
                self.current.line = line;
                self.current.pos = pos.take();
                self.current.index = None;
                self.current.values.clear();
                match t {
                    Token::Number(n) => {
                        self.current.values.push(n);
                        self.state = First;
                    }
                    Token::Open => self.state = ListValue,
                    t => return Err(err(line, format!("expected a record, found {}", describe(&t)))),
                }
            }
            (First, Token::Colon) => {
                self.current.index = self.current.values.pop();
                self.state = AfterIndex;
            }
            (First | TextAfter, Token::Comma) => self.state = TextValue,
            (First | TextAfter, Token::Semicolon) => self.finish()?,
            (First, t) => {
                return Err(err(line, format!("expected ':' (abbreviation index) or ',' / ';' (textual record), found {}", describe(&t))))
            }
            (AfterIndex, Token::Open) => self.state = ListValue,
            (AfterIndex, t) => return Err(err(line, format!("expected '<' after the abbreviation index, found {}", describe(&t)))),
            (ListValue, Token::Number(n)) | (TextValue, Token::Number(n)) => {
                self.current.values.push(n);
                self.state = if self.state == ListValue { ListAfter } else { TextAfter };
            }
            (ListValue, Token::Close) if self.current.values.is_empty() => {
                return Err(err(line, "empty record: '<>' has no record code"))
            }
            (ListValue | TextValue, t) => return Err(err(line, format!("expected a number, found {}", describe(&t)))),
            (ListAfter, Token::Comma) => self.state = ListValue,
            (ListAfter, Token::Close) => self.finish()?,
            (ListAfter, t) => return Err(err(line, format!("expected ',' or '>', found {}", describe(&t)))),
            (TextAfter, t) => return Err(err(line, format!("expected ',' or ';', found {}", describe(&t)))),
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), AsmError> {
        self.state = State::Idle;
        (self.emit)(&self.current)
    }
}

fn describe(t: &Token) -> String {
    match t {
        Token::Number(n) => format!("number {n}"),
        Token::Colon => "':'".into(),
        Token::Open => "'<'".into(),
        Token::Close => "'>'".into(),
        Token::Comma => "','".into(),
        Token::Semicolon => "';'".into(),
    }
}

/// A decimal number that fits in 64 bits.
fn parse_number(word: &str, line: usize) -> Result<u64, AsmError> {
    if !word.bytes().all(|c| c.is_ascii_digit()) {
        return Err(if word.as_bytes()[0].is_ascii_digit() {
            err(line, format!("malformed number {word:?}"))
        } else {
            err(line, format!("unexpected text {word:?}: expected a number"))
        });
    }
    word.parse::<u64>().map_err(|_| err(line, format!("number {word} does not fit in 64 bits")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statements(text: &str) -> Result<Vec<Statement>, AsmError> {
        let mut out = Vec::new();
        parse(text, &mut |s| {
            out.push(s.clone());
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn three_columns_with_wrapping() {
        let text = "   88:0|    3: <1, 0, 102, 97, 99,   |    @f0 : \"fact\";\n       |        116>                 |\n";
        let s = statements(text).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].line, 1);
        assert_eq!(s[0].pos, Some(BitPos(88 * 8)));
        assert_eq!(s[0].index, Some(3));
        assert_eq!(s[0].values, vec![1, 0, 102, 97, 99, 116]);
    }

    #[test]
    fn records_column_only_and_asm_after_bar() {
        let s = statements("1: <65535, 8, 2>\n  3: <1, 1>|version 1;\n<65534>\n").unwrap();
        assert_eq!(s.iter().map(|s| s.index).collect::<Vec<_>>(), vec![Some(1), Some(3), None]);
        assert!(s.iter().all(|s| s.pos.is_none()));
    }

    #[test]
    fn textual_form_several_per_line() {
        let s = statements("65535,8,2; 1,1;\n65534;\n").unwrap();
        let v: Vec<_> = s.iter().map(|s| (s.line, s.values.clone())).collect();
        assert_eq!(v, vec![(1, vec![65535, 8, 2]), (1, vec![1, 1]), (2, vec![65534])]);
    }

    #[test]
    fn errors_name_the_line() {
        let e = statements("3: <1, 1>\n3: <1, 1x>\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: malformed number \"1x\"");
        let e = statements("3: <1,\n").unwrap_err();
        assert_eq!(e.to_string(), "line 1: record is not finished: '>' is missing");
        let e = statements("  4:0|\n").unwrap_err();
        assert_eq!(e.to_string(), "line 1: position 4:0 is not followed by a record on its line");
        let e = statements("3: <99999999999999999999>").unwrap_err();
        assert_eq!(e.to_string(), "line 1: number 99999999999999999999 does not fit in 64 bits");
        let e = statements("4:9|3: <1>").unwrap_err();
        assert_eq!(e.to_string(), "line 1: position 4:9: the bit number must be below 8");
    }
}
