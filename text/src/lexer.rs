//! The logos lexer over rulebook prose: numbers, words, paragraph markers and the
//! punctuation that decides whether a number is a heading, a reference or a die roll.
//! Tokens are grouped by line, because headings, bullets and table rows are line shapes.

use logos::Logos;

/// One token kind. Whitespace other than newlines is skipped.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"[ \t\u{a0}\u{2009}\u{202f}]+")]
pub enum Tok {
    /// A line break: `\n`, `\r\n`, or a lone `\r` (old Mac files).
    #[regex(r"\r\n|\n|\r")]
    Newline,
    /// `9`, `9.41`, `5.11.10`.
    #[regex(r"[0-9]+(\.[0-9]+)*")]
    Number,
    /// A letter-spaced number from page extraction: `3 . 1 2 6` (= 3.126).
    #[regex(r"[0-9] \. [0-9]( [0-9])*")]
    SpacedNumber,
    /// `[45.]`.
    #[regex(r"\[[0-9]+\.\]")]
    Bracketed,
    /// A word; may carry digits and joiners after its first letter (`KR&Os`, `SE7`).
    #[regex(r"\p{L}[\p{L}\p{M}0-9'’&]*")]
    Word,
    #[token("¶")]
    Pilcrow,
    #[token("§")]
    Section,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(".")]
    Period,
    /// Dot leaders of a table of contents (four or more dots).
    #[regex(r"\.\.\.\.+")]
    Leader,
    /// An ellipsis: `...` or `…`.
    #[regex(r"\.\.\.|…")]
    Ellipsis,
    #[token(":")]
    Colon,
    #[token(";")]
    Semicolon,
    #[regex(r"[?!]")]
    Stop,
    /// Hyphen, en dash, em dash.
    #[regex(r"[-–—]")]
    Dash,
    #[regex(r#"["“”«»‘]"#)]
    Quote,
    #[token("•")]
    Bullet,
    #[token("|")]
    Pipe,
    #[token(">>>")]
    Chevrons,
    #[token("+")]
    Plus,
    #[token("=")]
    Equals,
    #[token("*")]
    Star,
    /// Anything else (a lone `/`, `%`, symbols).
    Other,
}

/// A token with its byte span in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub start: usize,
    pub end: usize,
}

/// One line of the source: its byte span (without the newline) and its tokens.
#[derive(Debug, Clone)]
pub struct Line {
    /// 0-based line number.
    pub number: usize,
    pub start: usize,
    pub end: usize,
    pub toks: Vec<Token>,
}

impl Line {
    /// The line's text.
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.start..self.end).unwrap_or("")
    }

    /// True for a line with no tokens.
    pub fn is_blank(&self) -> bool {
        self.toks.is_empty()
    }
}

/// Lex a whole text into lines of tokens. Never fails: unknown bytes become `Other`.
pub fn lex_lines(src: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut current = Line { number: 0, start: 0, end: src.len(), toks: Vec::new() };
    let mut lexer = Tok::lexer(src);
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        let kind = result.unwrap_or(Tok::Other);
        if kind == Tok::Newline {
            current.end = span.start;
            let next_number = current.number + 1;
            lines.push(std::mem::replace(
                &mut current,
                Line { number: next_number, start: span.end, end: src.len(), toks: Vec::new() },
            ));
        } else {
            current.toks.push(Token { kind, start: span.start, end: span.end });
        }
    }
    current.end = src.len();
    lines.push(current);
    lines
}

/// The text of a token.
pub fn tok_text<'a>(src: &'a str, t: &Token) -> &'a str {
    src.get(t.start..t.end).unwrap_or("")
}

/// The text of a number token with letter-spacing removed (`3 . 1 2 6` → `3.126`).
pub fn number_text(src: &str, t: &Token) -> String {
    tok_text(src, t).chars().filter(|c| !c.is_whitespace()).collect()
}
