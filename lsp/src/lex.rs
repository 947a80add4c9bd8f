//! A small scanner over `.ks` source: the identifiers and anchors of a file, outside
//! comments and strings, with their byte spans. Go to definition, references, hover and
//! completion read these; the compiler's parser stays the judge of what is valid.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    Ident,
    /// `§7.1.2`: the span covers the `§`; `text` is what follows it.
    Anchor,
}

#[derive(Clone, Debug)]
pub struct Tok {
    pub kind: TokKind,
    pub text: String,
    pub start: usize,
    pub end: usize,
}

/// The words the grammar reserves or uses as keywords (from `dsl/src/grammar.pest`).
pub const KEYWORDS: &[&str] = &[
    "above",
    "adjust",
    "after",
    "all",
    "amends",
    "and",
    "any",
    "at",
    "before",
    "best",
    "beyond",
    "break",
    "by",
    "call",
    "cap",
    "choose",
    "clamp",
    "classes",
    "columns",
    "contents",
    "count",
    "counters",
    "cumulative",
    "cup",
    "default",
    "dice",
    "down",
    "draw",
    "each",
    "edge",
    "eliminate",
    "else",
    "empty",
    "end",
    "enters",
    "error",
    "even_down",
    "example",
    "exit",
    "expect",
    "face",
    "facing",
    "false",
    "filter",
    "flag",
    "fn",
    "for",
    "form",
    "formations",
    "from",
    "grid",
    "has",
    "hex",
    "hexside",
    "hidden",
    "if",
    "in",
    "interrupt",
    "invariant",
    "is",
    "layer",
    "let",
    "line_of_sight",
    "log",
    "lose_step",
    "map",
    "mark",
    "marker",
    "max",
    "min",
    "modifiers",
    "move",
    "movement",
    "must",
    "none",
    "not",
    "numbering",
    "odd_down",
    "on",
    "once",
    "option",
    "optional",
    "or",
    "order",
    "path",
    "per",
    "phase",
    "place",
    "prefer",
    "procedure",
    "put",
    "rating",
    "reason",
    "region",
    "remove",
    "replaces",
    "result",
    "results",
    "retreat",
    "return",
    "roll",
    "round",
    "rows",
    "rulebook",
    "ruling",
    "run",
    "scenario",
    "sealed",
    "sequence",
    "set",
    "setup",
    "shown",
    "side",
    "sides",
    "start",
    "steps",
    "sum",
    "supplied",
    "table",
    "terrain",
    "then",
    "to",
    "track",
    "trigger",
    "true",
    "turn",
    "turns",
    "unit",
    "unmark",
    "up",
    "vertex",
    "waived",
    "waives",
    "when",
    "where",
    "while",
    "win",
    "zone_of_control",
];

fn ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The length in bytes of an anchor body at the start of `s` (after `§`), as the
/// grammar's `anchor_body` reads it: `Rule 11.F`, `Exclusive[12.]`, `7.1.2.B`.
pub fn anchor_len(s: &str) -> usize {
    let b = s.as_bytes();
    // "Moving Units": a heading.
    if let Some(rest) = s.strip_prefix('"') {
        let end = rest.find(['"', '\n', '\r']).unwrap_or(rest.len());
        if end > 0 && rest[end..].starts_with('"') {
            return end + 2;
        }
    }
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let letter = |i: usize, seps: &[u8]| {
        if i + 1 < b.len() && seps.contains(&b[i]) && b[i + 1].is_ascii_uppercase() {
            let after = b.get(i + 2).copied();
            if !after.map(|c| c.is_ascii_alphanumeric() || c == b'_').unwrap_or(false) {
                return i + 2;
            }
        }
        i
    };
    // Rule 11.F
    if let Some(rest) = s.strip_prefix("Rule") {
        let spaces = rest.len() - rest.trim_start_matches(' ').len();
        if spaces > 0 {
            let i = 4 + spaces;
            let j = digits(i);
            if j > i {
                return letter(j, b". ");
            }
        }
    }
    // Exclusive[12.]
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_alphabetic() {
        i += 1;
    }
    if i < b.len() && b[i] == b'[' {
        let j = digits(i + 1);
        if j > i + 1 {
            let mut k = j;
            if k < b.len() && b[k] == b'.' {
                k += 1;
            }
            if k < b.len() && b[k] == b']' {
                return letter(k + 1, b".");
            }
        }
    }
    // 7.1.2.B
    let mut j = digits(0);
    if j == 0 {
        return 0;
    }
    loop {
        if j + 1 < b.len() && b[j] == b'.' && b[j + 1].is_ascii_digit() {
            j = digits(j + 1);
        } else {
            break;
        }
    }
    letter(j, b".")
}

/// The identifiers and anchors of a source text, in order.
pub fn scan(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match c {
            '/' if text[i..].starts_with("//") => {
                // A comment runs to the end of the line.
                while let Some(&(_, c)) = it.peek() {
                    if c == '\n' {
                        break;
                    }
                    it.next();
                }
            }
            '"' => {
                while let Some((_, c)) = it.next() {
                    if c == '\\' {
                        it.next();
                    } else if c == '"' {
                        break;
                    }
                }
            }
            '§' => {
                let body = i + c.len_utf8();
                let n = anchor_len(&text[body..]);
                if n > 0 {
                    out.push(Tok {
                        kind: TokKind::Anchor,
                        text: text[body..body + n].split_whitespace().collect::<Vec<_>>().join(" "),
                        start: i,
                        end: body + n,
                    });
                    while let Some(&(j, _)) = it.peek() {
                        if j >= body + n {
                            break;
                        }
                        it.next();
                    }
                }
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = i + 1;
                while let Some(&(j, c)) = it.peek() {
                    if !ident_char(c) {
                        break;
                    }
                    end = j + 1;
                    it.next();
                }
                out.push(Tok { kind: TokKind::Ident, text: text[i..end].to_string(), start: i, end });
            }
            c if c.is_ascii_digit() => {
                // A number, hex id or dice (`2d6`): not a name.
                while let Some(&(_, c)) = it.peek() {
                    if !ident_char(c) {
                        break;
                    }
                    it.next();
                }
            }
            _ => {}
        }
    }
    out
}

/// The token whose span holds `offset` (its end counts, so a cursor just after a
/// name is on it).
pub fn token_at(toks: &[Tok], offset: usize) -> Option<&Tok> {
    toks.iter().find(|t| t.start <= offset && offset <= t.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_names_and_anchors_outside_comments_and_strings() {
        let src = "§7.1.2.B fn cost(u: Unit) -> Int { 2 } // hidden §9\nlog \"not_a_name\" §Rule 11.F x §Exclusive[12.];";
        let toks = scan(src);
        let names: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(
            names,
            ["7.1.2.B", "fn", "cost", "u", "Unit", "Int", "log", "Rule 11.F", "x", "Exclusive[12.]"]
        );
        assert_eq!(toks[0].kind, TokKind::Anchor);
        assert_eq!(&src[toks[2].start..toks[2].end], "cost");
    }

    #[test]
    fn anchor_lengths() {
        assert_eq!(anchor_len("7.1.2 rating"), 5);
        assert_eq!(anchor_len("13.0.B fn"), 6);
        assert_eq!(anchor_len("7.1.Bad"), 3);
        assert_eq!(anchor_len("x"), 0);
    }
}
