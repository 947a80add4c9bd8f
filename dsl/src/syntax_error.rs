//! Turning pest's parse errors into our E0001 diagnostics.
//!
//! pest reports the furthest position it reached and, with `set_error_detail(true)`,
//! the innermost rules and literal tokens it tried there. We name the rules in our own
//! words ([`phrase`]), drop the literal tokens those names already cover, and list what
//! is left (`;`, `}`, `then`, ...). Tokens that could only continue an expression
//! (operators, `.field`, `[index]`) are left out unless nothing else is expected.

use crate::ast::{FileId, Span};
use crate::diag::Diagnostic;
use crate::parser::Rule;
use pest::error::{Error, ErrorVariant, InputLocation};

const DECL_KWS: &[&str] = &[
    "sides",
    "players",
    "teams",
    "control",
    "rating",
    "classes",
    "unit",
    "marker",
    "track",
    "terrain",
    "hexside",
    "results",
    "table",
    "modifiers",
    "fn",
    "procedure",
    "movement",
    "zone_of_control",
    "retreat",
    "line_of_sight",
    "cup",
    "deck",
    "hand",
    "option",
    "map",
    "counters",
    "scenario",
    "trigger",
    "interrupt",
    "invariant",
    "layer",
    "waives",
    "replaces",
    "amends",
    "hidden",
    "score",
    "ruling",
    "finding",
    "example",
    "sequence",
    "formations",
    "§",
];
const STMT_KWS: &[&str] = &[
    "let",
    "sealed",
    "set",
    "if",
    "for",
    "while",
    "turns",
    "phase",
    "call",
    "return",
    "break",
    "move",
    "eliminate",
    "remove",
    "lose_step",
    "regain_step",
    "mark",
    "unmark",
    "adjust",
    "retreat",
    "win",
    "draw",
    "log",
    "put",
    "empty",
    "face",
    "form",
    "discard",
    "play",
    "reshuffle",
    "transfer",
    "clear",
    "reveal",
    "§",
];
const EXPR_START: &[&str] = &[
    "(", "[", "-", "@", "\"", "_", "if", "not", "roll", "choose", "sum", "count", "any", "all", "min", "max",
    "filter", "map", "argmax", "argmin", "draw", "true", "false",
];
/// Tokens that can only continue an expression that is already complete.
const EXPR_CONT: &[&str] =
    &["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", ".", "[", "(", "is", "has", "and", "or"];

/// The reserved words of the grammar's `keyword` rule.
const KEYWORDS: &[&str] = &[
    "and",
    "or",
    "not",
    "if",
    "then",
    "else",
    "let",
    "set",
    "for",
    "in",
    "while",
    "true",
    "false",
    "roll",
    "choose",
    "by",
    "prefer",
    "when",
    "is",
    "has",
    "where",
    "return",
    "call",
    "move",
    "to",
    "win",
    "draw",
    "mark",
    "unmark",
    "phase",
    "turns",
    "supplied",
    "waived",
    "eliminate",
    "remove",
    "lose_step",
    "regain_step",
    "adjust",
    "retreat",
    "log",
    "none",
];

/// A rule's name in our words, and the literal tokens that name covers.
fn phrase(rule: Rule) -> Option<(&'static str, &'static [&'static str])> {
    use Rule::*;
    Some(match rule {
        decl | supersede => ("a declaration after the anchor (table, unit, procedure, ...)", DECL_KWS),
        stmt | stmt_body => ("a statement", STMT_KWS),
        block => ("a block `{ ... }`", &["{"]),
        layer_use => ("`in layer NAME;`", &["in"]),
        // pest folds the failed alternatives of a top-level item into the item itself.
        item => (
            "a paragraph anchor like §7.1.2 (a declaration), a `rulebook` header, a `contents` block or `in layer NAME;`",
            &["§", "rulebook", "contents", "in"],
        ),
        anchor => ("a paragraph anchor like §7.1.2", &["§"]),
        anchor_body | rule_ref | part_ref | dotted_ref | heading_ref => {
            ("a paragraph number like 7.1.2, Rule 11.F or [45.], or a heading \"Title\", right after `§`", &["Rule", "[", "\""])
        }
        header => ("a `rulebook` header", &["rulebook"]),
        contents => ("a `contents` block", &["contents"]),
        contents_entry => ("a contents entry like §7.1 \"Title\"", &["§"]),
        header_field => ("`numbering`, `dice` or `parts`", &["numbering", "dice", "parts"]),
        waiver => ("`waived`", &["waived"]),
        supplied => ("`supplied`", &["supplied"]),
        ident | ident_list | hook_name => ("a name", &["_"]),
        int | opt_int => ("a number", &["-"]),
        string => ("a string in double quotes", &["\""]),
        dice => ("dice like 2d6", &["d"]),
        hex_lit | hex_item | hex_rect => ("a hex number like 0412 or an area name", &[]),
        hex_ref => ("a hex like @0412", &["@"]),
        side_item | side_pair | side_path => ("a hexside like 0305|0306 or path(...)", &["path"]),
        bool_lit => ("`true` or `false`", &["true", "false"]),
        literal => ("a value (number, ratio, string, true/false or name)", &["-", "\"", "_"]),
        ratio => ("a ratio like 2/1", &["-"]),
        int_range => ("a range like 0..40", &["-"]),
        open_range | range_list => ("a column range like ..-5, -4..-3, 0 or 6..", &["-", ".."]),
        type_expr | list_type => ("a type", &["List", "_"]),
        param | params => ("a parameter like `u: Unit`", &["_"]),
        attr | attr_block => ("an attribute like `cost: 2`", &["_"]),
        table_clause => {
            ("a table clause (roll, result, columns, beyond)", &["roll", "result", "columns", "beyond"])
        }
        table_rows => ("`rows { ... }`", &["rows"]),
        table_row => ("a table row like `1: NE Ar;`", &["-"]),
        cell => ("a result code or number", &["-", "_"]),
        beyond_axis => ("`rows` or `columns`", &["rows", "columns"]),
        beyond_mode => ("`clamp` or `error`", &["clamp", "error"]),
        modifier_line | mod_effect | mod_add | mod_mul => {
            ("a modifier like `+1 when ...;` or `x1/2 when ...;`", &["+", "-", "x", "§"])
        }
        modifier_opt => ("`round`, `cap`, `cumulative` or `best`", &["round", "cap", "cumulative", "best"]),
        round_dir => ("`up` or `down`", &["up", "down"]),
        int_or_name => ("a number or a name", &["-", "_"]),
        marker_target => ("`unit`, `hex` or `side`", &["unit", "hex", "side"]),
        player_count => ("a player count like `3 { [A, B] [C] [D] }`", &["-"]),
        player_group => ("a player's sides like `[A, B]`", &["["]),
        team_def => ("a team like `Allied { A, B }`", &["_"]),
        hook | hook_value | hook_list | hook_item => ("a hook like `cost: move_cost;`", &["[", "_"]),
        hook_scope => ("`end` or `each`", &["end", "each"]),
        ruling_alt => ("a ruling alternative like `name \"reading\";`", &["default", "_"]),
        map_item => (
            "a map clause (grid, default, terrain, hexside, region, edge)",
            &["grid", "default", "terrain", "hexside", "region", "edge"],
        ),
        layout => ("`even_down` or `odd_down`", &["even_down", "odd_down"]),
        counter => ("a counter like `Side \"Name\" UnitType { cs: 4 }`", &["_"]),
        counter_value => ("a rating value like `cs: 6/3`", &["_"]),
        scenario_item => (
            "a scenario clause (turns, order, start, flag, setup)",
            &["turns", "order", "start", "flag", "setup", "§"],
        ),
        placement => ("a placement like `\"Unit\" at 0412;`", &["\""]),
        placement_where => ("`at`, `enters turn` or `arrives turn`", &["at", "enters", "arrives"]),
        example_item => (
            "an example step (scenario, place, dice, run, expect)",
            &["scenario", "place", "dice", "run", "expect"],
        ),
        quant => ("a quantifier", &[]),
        steps_clause => ("`steps`", &["steps"]),
        per_side => ("`per side`", &["per"]),
        once => ("`once`", &["once"]),
        chained => ("`chained`", &["chained"]),
        default_kw => ("`default`", &["default"]),
        or_none => ("`or none`", &["or"]),
        prefer_clause => ("`prefer`", &["prefer"]),
        where_clause => ("`where`", &["where"]),
        body_clause => ("`:`", &[":"]),
        sign => ("`+` or `-`", &["+", "-"]),
        _ => return None,
    })
}

/// Rules that, when pest stops inside them, may be either the start or the continuation
/// of an expression.
fn is_expr_level(rule: Rule) -> bool {
    use Rule::*;
    matches!(
        rule,
        expr | if_expr
            | op_expr
            | arith_expr
            | postfix
            | primary
            | args
            | list_expr
            | call_expr
            | roll_expr
            | choose_expr
            | quant_expr
    )
}

fn is_expr_cont(rule: Rule) -> bool {
    use Rule::*;
    matches!(
        rule,
        or_kw
            | and_kw
            | not_kw
            | cmp_op
            | add_op
            | mul_op
            | postfix_op
            | field
            | index
            | is_test
            | has_test
            | is_kw
            | has_kw
    )
}

/// Convert a pest error into our diagnostic.
pub(crate) fn convert(file: FileId, text: &str, e: Error<Rule>) -> Diagnostic {
    let loc = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    if let ErrorVariant::CustomError { message } = &e.variant {
        // pest's own limits (native stack, call budget).
        let at = loc.min(text.len());
        return Diagnostic::error("E0001", Span::new(file, at, at), "the file is nested too deeply to parse")
            .with_note(format!("the parser stopped: {message}"));
    }
    let attempts = e.parse_attempts();
    let pos = attempts
        .as_ref()
        .filter(|a| !a.call_stacks.is_empty() || !a.expected_tokens().is_empty())
        .map(|a| a.max_position)
        .unwrap_or(loc)
        .min(text.len());
    let pos = floor_char_boundary(text, pos);

    let mut rules: Vec<Rule> = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    match &attempts {
        Some(a) if !a.call_stacks.is_empty() || !a.expected_tokens().is_empty() => {
            for cs in a.call_stacks() {
                if let Some(r) = cs.deepest.get_rule() {
                    rules.push(*r);
                }
            }
            for t in a.expected_tokens() {
                // pest does not export `ParsingToken`; its Display is the literal, or
                // `a..z` for a character range (which the rule names cover).
                let t = t.to_string();
                let is_range = t.chars().count() == 4 && t.chars().skip(1).take(2).eq("..".chars());
                if !is_range && t != "BUILTIN_RULE" {
                    tokens.push(t);
                }
            }
        }
        _ => {
            if let ErrorVariant::ParsingError { positives, .. } = &e.variant {
                rules.extend(positives.iter().copied());
            }
        }
    }

    let mut pos = pos;
    // Inside an unfinished hex or dice token pest stops after its last character; point
    // at the whole token instead (`@12;` -> `12`).
    let token_rules = [Rule::hex_lit, Rule::hex_item, Rule::hex_rect, Rule::hex_ref, Rule::dice];
    if !rules.is_empty() && rules.iter().all(|r| token_rules.contains(r)) {
        let glued = text[..pos]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c.is_ascii_alphanumeric())
            .last()
            .map(|(i, _)| i);
        if let Some(g) = glued {
            pos = g;
        }
    }
    let (mut found, mut found_end) = describe_found(text, pos);
    let mut reserved = None;
    if rules.contains(&Rule::ident) {
        // `!keyword` in `ident` makes pest stop at the end of a reserved word.
        let before = &text[..pos];
        let start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c.is_ascii_alphanumeric() || c == '_')
            .last()
            .map(|(i, _)| i)
            .unwrap_or(pos);
        let word_at = |s: usize| {
            let w = &text[s..];
            let n = w.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(w.len());
            &text[s..s + n]
        };
        for s in [start, pos] {
            let w = word_at(s);
            if KEYWORDS.contains(&w) {
                pos = s;
                found_end = s + w.len();
                found = format!("the reserved word `{w}`");
                reserved = Some(w);
                break;
            }
        }
    }
    let span = Span::new(file, pos, found_end);

    // An unterminated string: point at its opening quote.
    if rules.contains(&Rule::str_inner) {
        let open = opening_quote(text, pos).unwrap_or(pos);
        return Diagnostic::error(
            "E0001",
            Span::new(file, open, (open + 1).min(text.len())),
            "unterminated string: expected a closing `\"`",
        );
    }

    let expr_start = tokens.iter().any(|t| t == "@");
    let have_tokens = !tokens.is_empty();
    let mut phrases: Vec<&'static str> = Vec::new();
    let mut covered: Vec<&'static str> = Vec::new();
    let mut cont = false;
    let has_decl_or_stmt = rules.iter().any(|r| matches!(r, Rule::decl | Rule::stmt_body | Rule::stmt));
    for &r in &rules {
        if is_expr_level(r) {
            if expr_start {
                push_unique(&mut phrases, "an expression");
                covered.extend_from_slice(EXPR_START);
            } else {
                cont = true;
            }
            continue;
        }
        if is_expr_cont(r) {
            cont = true;
            continue;
        }
        if r == Rule::anchor && has_decl_or_stmt {
            // `§7.1 §7.2 unit ...` and anchored statements: the anchor is optional there.
            covered.push("§");
            continue;
        }
        if let Some((p, c)) = phrase(r) {
            // pest names the innermost rule whether it failed to start or to go on
            // (`+1 if x`: `modifier_line` wants `when`). A rule whose first tokens are
            // literals is only named when one of them was tried here.
            if !c.is_empty() && have_tokens && !c.iter().any(|t| tokens.iter().any(|x| x == t)) {
                continue;
            }
            push_unique(&mut phrases, p);
            covered.extend_from_slice(c);
        }
    }
    if cont {
        covered.extend_from_slice(EXPR_CONT);
    }
    let mut extra: Vec<String> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    for t in &tokens {
        // `_` only ever continues a name.
        if matches!(t.as_str(), " " | "\t" | "\r" | "\n" | "//" | "_") {
            continue;
        }
        if t.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
            words.push(t.clone());
        }
        if covered.contains(&t.as_str()) {
            continue;
        }
        let s = format!("`{t}`");
        if !extra.contains(&s) {
            extra.push(s);
        }
    }
    // A name or number that ends right here could go on; say so only when nothing else
    // is expected (`{ A, B` at the end of the file expects `,` or `}`).
    let glued = text[..pos].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_');
    if glued && phrases.len() + extra.len() > 1 {
        phrases.retain(|p| !matches!(*p, "a name" | "a number"));
    }
    let mut all: Vec<String> = phrases.iter().map(|p| p.to_string()).collect();
    all.extend(extra);
    if all.is_empty() {
        all.push(if cont { "an operator".to_string() } else { "something else".to_string() });
    }
    let expected = join_or(&all);
    let mut d = Diagnostic::error("E0001", span, format!("expected {expected}, found {found}"));

    if let Some(w) = reserved {
        d = d.with_note(format!("`{w}` is a reserved word and cannot be used as a name"));
    }
    let found_text = &text[pos..found_end];
    if cont && matches!(found_text, "==" | "!=" | "<" | "<=" | ">" | ">=") {
        d = d.with_note("comparisons do not chain: write `a < b and b < c`");
    }
    // A misspelt keyword.
    if found_text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !found_text.is_empty() {
        for r in &rules {
            if let Some((_, c)) = phrase(*r) {
                words.extend(c.iter().map(|s| s.to_string()));
            }
        }
        if let Some(best) = words
            .iter()
            .filter(|w| w.as_str() != found_text && w.chars().all(|c| c.is_ascii_alphabetic() || c == '_'))
            .map(|w| (edit_distance(w, found_text), w))
            .filter(|(dist, w)| *dist <= 1 + w.len() / 5 && w.len() > 2)
            .min()
        {
            d = d.with_note(format!("help: did you mean `{}`?", best.1));
        }
    }
    // A missing `;` belongs at the end of the statement, not at the next line's token.
    if tokens.iter().any(|t| t == ";") {
        if let Some(gap) = end_of_previous_line(text, pos) {
            let found_span = d.span;
            d.span = Span::new(file, gap, gap);
            d = d.with_label(found_span, "the next token");
            d.message = format!("expected {expected} at the end of this line, found {found} after it");
        }
    }
    // The end of the file inside a block: name the `{` left open.
    if found == "end of file" && tokens.iter().any(|t| t == "}") {
        if let Some(open) = unclosed_brace(text) {
            let line = text[..open].matches('\n').count() + 1;
            d = d
                .with_label(Span::new(file, open, open + 1), "this `{` is never closed")
                .with_note(format!("the `{{` on line {line} has no matching `}}`"));
        }
    }
    d
}

/// Where a token that should have ended a line goes, when the parser stopped at `pos`
/// on a later line: the end of the last line before `pos` that holds code (comments
/// and blank lines skipped). None when `pos` is on the same line as that code.
fn end_of_previous_line(text: &str, pos: usize) -> Option<usize> {
    let before = &text[..pos];
    let mut end = before.len();
    let mut crossed = false;
    loop {
        let line_start = before[..end].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let line = &before[line_start..end];
        let code = strip_comment(line).trim_end();
        if !code.is_empty() {
            return if crossed { Some(line_start + code.len()) } else { None };
        }
        if line_start == 0 {
            return None;
        }
        crossed = true;
        end = line_start - 1;
    }
}

/// A line without its `//` comment (a `//` inside a string is not one).
fn strip_comment(line: &str) -> &str {
    let mut in_str = false;
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => in_str = !in_str,
            b'\\' if in_str => i += 1,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// The innermost `{` with no matching `}` in the whole text (strings and comments
/// skipped), if any.
fn unclosed_brace(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut open: Vec<usize> = Vec::new();
    let (mut i, mut in_str) = (0, false);
    while i < b.len() {
        match b[i] {
            b'"' => in_str = !in_str,
            b'\\' if in_str => i += 1,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'{' if !in_str => open.push(i),
            b'}' if !in_str => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    open.last().copied()
}

fn push_unique(v: &mut Vec<&'static str>, s: &'static str) {
    if !v.contains(&s) {
        v.push(s);
    }
}

/// `a`, `a or b`, `a, b or c`.
fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// What stands at `pos`, for "found ...", and where that token ends.
fn describe_found(text: &str, pos: usize) -> (String, usize) {
    let rest = &text[pos..];
    let Some(c) = rest.chars().next() else {
        return ("end of file".to_string(), pos);
    };
    let word_len = rest
        .char_indices()
        .find(|&(_, ch)| !(ch.is_alphanumeric() || ch == '_'))
        .map(|(i, _)| i)
        .unwrap_or(rest.len());
    if word_len > 0 {
        let w = &rest[..word_len];
        return (format!("`{w}`"), pos + word_len);
    }
    if c == '"' {
        return ("a string".to_string(), pos + 1);
    }
    for op in ["==", "!=", "<=", ">=", "->", ".."] {
        if rest.starts_with(op) {
            return (format!("`{op}`"), pos + op.len());
        }
    }
    let shown = match c {
        '\n' | '\r' => "end of line".to_string(),
        '\t' | ' ' => "whitespace".to_string(),
        '`' => "a backtick".to_string(),
        c if c.is_control() => format!("character U+{:04X}", c as u32),
        c => format!("`{c}`"),
    };
    (shown, pos + c.len_utf8())
}

/// The opening quote of the string that runs to `end` without closing.
fn opening_quote(text: &str, end: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = end.min(bytes.len());
    while i > 0 {
        i -= 1;
        if bytes[i] == b'"' {
            let mut backslashes = 0;
            let mut j = i;
            while j > 0 && bytes[j - 1] == b'\\' {
                backslashes += 1;
                j -= 1;
            }
            if backslashes % 2 == 0 {
                return Some(i);
            }
        }
    }
    None
}

fn floor_char_boundary(text: &str, mut pos: usize) -> usize {
    while pos > 0 && !text.is_char_boundary(pos) {
        pos -= 1;
    }
    pos
}

/// Optimal-string-alignment distance (a swap of two neighbours counts as one edit).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}
