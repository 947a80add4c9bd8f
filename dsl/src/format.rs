//! `kriegsspiel fmt`: the canonical layout of a rulebook file.
//!
//! The formatter changes whitespace between tokens only, never a token, so a formatted
//! file parses to the same rulebook (tests/fmt.rs compiles every rulebook both ways):
//!
//! - a line that starts a statement or declaration is indented two spaces per open
//!   `{`, `(` and `[` (outside strings and comments), one level less when it starts by
//!   closing a `}`; a line starts one when the code line before it ended with `;`, `{`
//!   or `}`, or is the file's first;
//! - a continuation line (any other) keeps its indentation relative to the line that
//!   started its statement, and is never indented less than its nesting asks: a long
//!   condition's hanging `and` and `else` stay where the author aligned them;
//! - tabs between tokens become single spaces, trailing whitespace is removed;
//! - runs of blank lines become one blank line; none at the start; the file ends with
//!   exactly one newline, and line ends are `\n`;
//! - everything else inside a line is kept: two tokens written together stay together
//!   (`§7.1.2`, `..-1`, `x1/2`), a space stays a space, and spaces that align columns
//!   (a contents block, a table's rows) stay as written;
//! - strings (which may span lines) and `//` comments are kept verbatim.
//!
//! Formatting is idempotent: a formatted file formats to itself.

/// One source line cut into its code and where it stands.
struct Line<'a> {
    /// The line without its leading and trailing whitespace; `None` for a blank line.
    text: Option<&'a str>,
    /// Nesting depth at the start of the line, and the closers the line starts with.
    depth: usize,
    leading_closers: usize,
    /// Its indentation as written (a tab counts two).
    indent: usize,
    /// The last character of its code (outside strings' ends and comments), if any.
    last: Option<char>,
    /// Only a comment.
    comment_only: bool,
    /// Starts with `}`.
    starts_with_brace: bool,
    /// The line starts inside a string that began on an earlier line: kept verbatim.
    in_string: bool,
    raw: &'a str,
}

/// Format one file's text.
pub fn format_source(src: &str) -> String {
    let mut lines: Vec<Line> = Vec::new();
    let mut depth: usize = 0;
    let mut in_string = false;
    for raw in src.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let starts_in_string = in_string;
        let trimmed = if starts_in_string { raw.trim_end() } else { raw.trim() };
        let text = if trimmed.is_empty() && !starts_in_string { None } else { Some(trimmed) };
        let indent =
            raw.chars().take_while(|c| *c == ' ' || *c == '\t').map(|c| if c == '\t' { 2 } else { 1 }).sum();
        let start_depth = depth;
        let mut leading_closers = 0;
        let mut leading = !starts_in_string;
        let mut last = None;
        let mut chars = raw.chars().peekable();
        let mut escaped = false;
        while let Some(c) = chars.next() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_string = false;
                }
                last = Some(c);
                continue;
            }
            match c {
                '"' => {
                    in_string = true;
                    leading = false;
                }
                '/' if chars.peek() == Some(&'/') => break,
                '{' | '(' | '[' => {
                    depth += 1;
                    leading = false;
                }
                '}' | ')' | ']' => {
                    depth = depth.saturating_sub(1);
                    if leading {
                        leading_closers += 1;
                    }
                }
                c if c.is_whitespace() => continue,
                _ => leading = false,
            }
            last = Some(c);
        }
        lines.push(Line {
            text,
            depth: start_depth,
            leading_closers,
            indent,
            last,
            comment_only: text.is_some_and(|t| t.starts_with("//")) && !starts_in_string,
            starts_with_brace: text.is_some_and(|t| t.starts_with('}')) && !starts_in_string,
            in_string: starts_in_string,
            raw,
        });
    }
    let mut out = String::with_capacity(src.len());
    let mut blank_pending = false;
    // The line that started the current statement: (indent as written, indent given).
    let mut anchor: Option<(usize, usize)> = None;
    // The last code line's last character: whether the next line starts a statement.
    let mut ended = true;
    for l in &lines {
        if l.in_string {
            // Inside a multi-line string: the text is the string's own, byte for byte
            // (trailing whitespace, which a string may hold, included).
            out.push_str(l.raw);
            out.push('\n');
            if let Some(c) = l.last {
                ended = matches!(c, ';' | '{' | '}');
            }
            continue;
        }
        let Some(text) = l.text else {
            blank_pending = !out.is_empty();
            continue;
        };
        if blank_pending {
            out.push('\n');
            blank_pending = false;
        }
        let nesting = 2 * l.depth.saturating_sub(l.leading_closers);
        let level = match anchor {
            Some((written, given)) if !ended && !l.starts_with_brace => {
                nesting.max((given + l.indent).saturating_sub(written))
            }
            _ => nesting,
        };
        if !l.comment_only {
            if ended || l.starts_with_brace || anchor.is_none() {
                anchor = Some((l.indent, level));
            }
            if let Some(c) = l.last {
                ended = matches!(c, ';' | '{' | '}');
            }
        }
        for _ in 0..level {
            out.push(' ');
        }
        out.push_str(&untab(text));
        out.push('\n');
    }
    out
}

/// Tabs between tokens become single spaces (tabs inside strings and comments stay).
fn untab(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_string();
    }
    let mut o = String::with_capacity(line.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = line.char_indices().peekable();
    while let Some((i, c)) = rest.next() {
        if in_string {
            o.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                o.push(c);
            }
            '/' if line[i..].starts_with("//") => {
                o.push_str(&line[i..]);
                break;
            }
            '\t' => {
                if !o.ends_with(' ') {
                    o.push(' ');
                }
                while rest.peek().is_some_and(|&(_, c)| c == '\t' || c == ' ') {
                    rest.next();
                }
            }
            _ => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indents_by_nesting() {
        let src = "§1.0 sequence {\nturns 3 {\n      phase Move(s) { call go(s); }\n}\n    }\n";
        let want = "§1.0 sequence {\n  turns 3 {\n    phase Move(s) { call go(s); }\n  }\n}\n";
        assert_eq!(format_source(src), want);
        assert_eq!(format_source(want), want, "idempotent");
    }

    #[test]
    fn keeps_tokens_strings_comments_and_alignment() {
        let src = "contents {\n§1.0    \"A {\"   // a { in a comment\n§2.0    \"B\"\n}\n";
        let out = format_source(src);
        assert_eq!(out, "contents {\n  §1.0    \"A {\"   // a { in a comment\n  §2.0    \"B\"\n}\n");
        // A string over two lines is kept as written, and does not open a block.
        let src = "x {\n  log \"one\n   two {\";\n      y;\n}\n";
        assert_eq!(format_source(src), "x {\n  log \"one\n   two {\";\n  y;\n}\n");
    }

    #[test]
    fn blank_lines_trailing_space_tabs_and_line_ends() {
        let src = "\n\na;  \r\n\n\n\nb\t\t= 1;\r\n\t\"a\tb\";";
        assert_eq!(format_source(src), "a;\n\nb = 1;\n\"a\tb\";\n");
        assert_eq!(format_source(""), "");
    }

    #[test]
    fn continuation_lines_keep_their_hang() {
        // A statement's continuation keeps its offset from the statement's first line,
        // wherever that line moves.
        let src = "    fn f() -> Int =\n      if a then 1\n      else 2;\nlet y = g(a,\n          b);\n";
        let want = "fn f() -> Int =\n  if a then 1\n  else 2;\nlet y = g(a,\n          b);\n";
        assert_eq!(format_source(src), want);
        assert_eq!(format_source(want), want);
        // Never less than its nesting asks.
        assert_eq!(format_source("x {\nlet a = 1 +\n2;\n}\n"), "x {\n  let a = 1 +\n  2;\n}\n");
    }

    #[test]
    fn parens_and_brackets_indent_too() {
        let src = "let x = f(\na,\nb\n);\nlet y = [\n1\n];\n";
        assert_eq!(format_source(src), "let x = f(\n  a,\n  b\n);\nlet y = [\n  1\n];\n");
    }
}
