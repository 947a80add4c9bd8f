//! Line and token mutations of a rulebook's source, shared by the property tests
//! (`tests/props.rs`, which draw them with proptest) and the native back end's mutant
//! check (`native-check/build.rs`, which draws them from a fixed seed, compiles the
//! mutants that still compile to Rust, and `native-check/tests/differential.rs` plays
//! them on both back ends).

/// One edit of a file: line numbers and token indices are taken modulo the file's.
#[derive(Clone, Debug)]
pub enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    ReplaceToken(usize, &'static str),
    DeleteToken(usize),
    /// Change the i-th tweakable token ([`tweak`]) into its counterpart: a mutant that
    /// usually still compiles, and plays differently.
    Tweak(usize),
}

/// The counterpart of a token a [`Mutation::Tweak`] may change: a number's last digit
/// plus one (a hex id becomes a neighbouring column's), `and`/`or`, `true`/`false`,
/// `min`/`max`, `any`/`all`, `<`/`>`, `+`/`-`.
pub fn tweak(tok: &str) -> Option<String> {
    if !tok.is_empty() && tok.bytes().all(|b| b.is_ascii_digit()) {
        let (head, last) = tok.split_at(tok.len() - 1);
        let d = (last.as_bytes()[0] - b'0' + 1) % 10;
        return Some(format!("{head}{d}"));
    }
    let pairs = [("and", "or"), ("true", "false"), ("min", "max"), ("any", "all"), ("<", ">"), ("+", "-")];
    pairs.iter().find_map(|&(a, b)| {
        if tok == a {
            Some(b.to_string())
        } else if tok == b {
            Some(a.to_string())
        } else {
            None
        }
    })
}

/// Words, names and punctuation of the language, for token soup and replacements.
#[rustfmt::skip]
pub const VOCAB: &[&str] = &[
    "§1.0", "§2.0", "§2.1", "§2.1.A", "§9.9", "§Rule 4", "§[12.]", "§", "rulebook", "contents",
    "sides", "rating", "classes", "unit", "marker", "track", "terrain", "hexside", "results",
    "table", "modifiers", "fn", "procedure", "movement", "zone_of_control", "retreat", "map",
    "counters", "scenario", "trigger", "ruling", "example", "sequence", "supplied", "waived",
    "roll", "rows", "columns", "result", "beyond", "clamp", "when", "cumulative", "best", "round",
    "up", "cap", "let", "set", "if", "then", "else", "for", "in", "while", "turns", "phase", "call",
    "return", "move", "to", "mark", "unmark", "adjust", "by", "win", "draw", "log", "choose",
    "prefer", "sum", "count", "any", "all", "min", "max", "filter", "where", "is", "has", "and",
    "or", "not", "true", "false", "grid", "x", "even_down", "default", "region", "setup", "at",
    "order", "start", "flag", "steps", "on", "per", "side", "Int", "Bool", "Unit", "Hex", "Side",
    "List", "Blue", "Red", "foot", "Infantry", "cs", "T", "f", "u", "n", "0", "1", "6", "-1",
    "99999999999999999999", "1d6", "0d6", "2d0", "0101", "0203", "@0101", "@9999", "1/2", "x1/0",
    "..", "1..6", "..0", "|", ":", ";", ",", ".", "(", ")", "{", "}", "[", "]", "<", ">", "->", "=",
    "==", "+", "-", "*", "/", "\"s\"", "\"", "//", "\n", "é", "€",
];

/// Byte ranges of the tokens of `text`: runs of name characters, or single other
/// non-space characters.
pub fn tokens(text: &str) -> Vec<(usize, usize)> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == '§';
    let mut out = Vec::new();
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c.is_whitespace() {
            continue;
        }
        let mut end = i + c.len_utf8();
        if word(c) {
            while let Some(&(j, d)) = it.peek() {
                if !word(d) {
                    break;
                }
                end = j + d.len_utf8();
                it.next();
            }
        }
        out.push((i, end));
    }
    out
}

/// `text` with mutation `m` applied.
pub fn apply(text: &str, m: &Mutation) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    match m {
        Mutation::DeleteLine(i) if !lines.is_empty() => {
            lines.remove(i % lines.len());
        }
        Mutation::DuplicateLine(i) if !lines.is_empty() => {
            let k = i % lines.len();
            lines.insert(k, lines[k]);
        }
        Mutation::SwapLines(a, b) if !lines.is_empty() => {
            let (a, b) = (a % lines.len(), b % lines.len());
            lines.swap(a, b);
        }
        Mutation::ReplaceToken(i, _) | Mutation::DeleteToken(i) if !text.is_empty() => {
            let toks = tokens(text);
            if toks.is_empty() {
                return text.to_string();
            }
            let (s, e) = toks[i % toks.len()];
            let with = if let Mutation::ReplaceToken(_, t) = m { *t } else { "" };
            return format!("{}{}{}", &text[..s], with, &text[e..]);
        }
        Mutation::Tweak(i) => {
            let toks: Vec<(usize, usize, String)> =
                tokens(text).into_iter().filter_map(|(s, e)| tweak(&text[s..e]).map(|t| (s, e, t))).collect();
            let Some((s, e, t)) = toks.get(i % toks.len().max(1)) else { return text.to_string() };
            return format!("{}{}{}", &text[..*s], t, &text[*e..]);
        }
        _ => {}
    }
    lines.concat()
}

/// A rulebook's files `(name, text)` with mutations `muts` applied to the file `file`
/// picks (modulo the number of files).
pub fn mutate_files(files: &[(String, String)], file: usize, muts: &[Mutation]) -> Vec<(String, String)> {
    let target = file % files.len().max(1);
    files
        .iter()
        .enumerate()
        .map(|(i, (name, text))| {
            let mut t = text.clone();
            if i == target {
                for m in muts {
                    t = apply(&t, m);
                }
            }
            (name.clone(), t)
        })
        .collect()
}

/// A fixed, seeded stream of mutations (SplitMix64), for a build that must produce the
/// same mutants every time; proptest draws its own.
#[allow(dead_code)]
pub struct Stream(pub u64);

#[allow(dead_code)]
impl Stream {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn index(&mut self) -> usize {
        (self.next_u64() >> 1) as usize
    }

    /// The next mutation: half of them tweaks (most of which compile), the others each
    /// of the five other kinds alike.
    pub fn mutation(&mut self) -> Mutation {
        match self.next_u64() % 10 {
            5..=9 => Mutation::Tweak(self.index()),
            0 => Mutation::DeleteLine(self.index()),
            1 => Mutation::DuplicateLine(self.index()),
            2 => Mutation::SwapLines(self.index(), self.index()),
            3 => {
                let i = self.index();
                Mutation::ReplaceToken(i, VOCAB[self.index() % VOCAB.len()])
            }
            _ => Mutation::DeleteToken(self.index()),
        }
    }
}
