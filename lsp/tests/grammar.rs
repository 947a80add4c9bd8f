//! The VS Code grammar (editors/vscode/syntaxes/kriegsspiel.tmLanguage.json), checked
//! the way an editor applies it: a small TextMate engine (match rules with captures,
//! begin/end rules with inner patterns, `#repository` includes; the leftmost match wins,
//! ties to the earlier pattern, an end pattern before inner ones) runs the grammar's
//! patterns with the `regex` crate (the grammar uses no look-around, so `regex` and
//! Oniguruma read them alike) over sample lines and over the real rulebooks.

use regex::Regex;
use serde_json::Value;
use std::path::{Path, PathBuf};

enum Rule {
    Match { re: Regex, name: Option<String>, captures: Vec<(usize, String)> },
    BeginEnd { begin: Regex, end: Regex, name: Option<String>, patterns: Vec<Rule> },
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load() -> (Value, Vec<Rule>) {
    let path = root().join("editors/vscode/syntaxes/kriegsspiel.tmLanguage.json");
    let text = std::fs::read_to_string(&path).expect("grammar file");
    let g: Value = serde_json::from_str(&text).expect("grammar is JSON");
    let rules = compile_list(&g["patterns"], &g["repository"], 0);
    (g, rules)
}

fn re(v: &Value) -> Regex {
    let s = v.as_str().expect("pattern is a string");
    Regex::new(s).unwrap_or_else(|e| panic!("pattern {s:?} does not compile: {e}"))
}

fn compile_list(list: &Value, repo: &Value, depth: usize) -> Vec<Rule> {
    assert!(depth < 16, "include cycle");
    let mut out = Vec::new();
    for p in list.as_array().expect("patterns is a list") {
        compile(p, repo, depth, &mut out);
    }
    out
}

fn compile(p: &Value, repo: &Value, depth: usize, out: &mut Vec<Rule>) {
    let name = p["name"].as_str().map(String::from);
    if let Some(inc) = p["include"].as_str() {
        let key = inc.strip_prefix('#').expect("only #repository includes");
        let target = &repo[key];
        assert!(!target.is_null(), "include {inc} is not in the repository");
        compile(target, repo, depth + 1, out);
    } else if !p["match"].is_null() {
        let mut captures = Vec::new();
        if let Some(c) = p["captures"].as_object() {
            for (k, v) in c {
                let i: usize = k.parse().expect("capture index");
                captures.push((i, v["name"].as_str().expect("capture name").to_string()));
            }
        }
        out.push(Rule::Match { re: re(&p["match"]), name, captures });
    } else if !p["begin"].is_null() {
        let patterns =
            if p["patterns"].is_null() { Vec::new() } else { compile_list(&p["patterns"], repo, depth + 1) };
        out.push(Rule::BeginEnd { begin: re(&p["begin"]), end: re(&p["end"]), name, patterns });
    } else {
        out.extend(compile_list(&p["patterns"], repo, depth + 1));
    }
}

/// The innermost scope of every byte of every line ("" where none).
fn tokenize(rules: &[Rule], text: &str) -> Vec<Vec<String>> {
    let mut stack: Vec<&Rule> = Vec::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let mut scopes = vec![String::new(); line.len()];
        let mut pos = 0;
        while pos <= line.len() {
            let outer = stack
                .last()
                .and_then(|r| match r {
                    Rule::BeginEnd { name, .. } => name.clone(),
                    _ => None,
                })
                .unwrap_or_default();
            let (inner, end): (&[Rule], Option<&Regex>) = match stack.last() {
                Some(Rule::BeginEnd { patterns, end, .. }) => (patterns, Some(end)),
                _ => (rules, None),
            };
            // (start, end, which): which = None for the end pattern.
            let mut best: Option<(usize, usize, Option<usize>)> = None;
            if let Some(e) = end {
                if let Some(m) = e.find_at(line, pos) {
                    best = Some((m.start(), m.end(), None));
                }
            }
            for (i, r) in inner.iter().enumerate() {
                let re = match r {
                    Rule::Match { re, .. } => re,
                    Rule::BeginEnd { begin, .. } => begin,
                };
                if let Some(m) = re.find_at(line, pos) {
                    if best.map(|b| m.start() < b.0).unwrap_or(true) {
                        best = Some((m.start(), m.end(), Some(i)));
                    }
                }
            }
            let Some((s, e, which)) = best else {
                for sc in &mut scopes[pos..] {
                    *sc = outer.clone();
                }
                break;
            };
            for sc in &mut scopes[pos..s] {
                *sc = outer.clone();
            }
            match which {
                None => {
                    for sc in &mut scopes[s..e] {
                        *sc = outer.clone();
                    }
                    stack.pop();
                }
                Some(i) => match &inner[i] {
                    Rule::Match { re, name, captures } => {
                        let whole = name.clone().unwrap_or_else(|| outer.clone());
                        for sc in &mut scopes[s..e] {
                            *sc = whole.clone();
                        }
                        if let Some(c) = re.captures_at(line, s) {
                            for (k, n) in captures {
                                if let Some(g) = c.get(*k) {
                                    for sc in &mut scopes[g.start()..g.end()] {
                                        *sc = n.clone();
                                    }
                                }
                            }
                        }
                    }
                    r @ Rule::BeginEnd { name, .. } => {
                        let n = name.clone().unwrap_or_else(|| outer.clone());
                        for sc in &mut scopes[s..e] {
                            *sc = n.clone();
                        }
                        stack.push(r);
                    }
                },
            }
            pos = if e > s { e } else { s + line[s..].chars().next().map(char::len_utf8).unwrap_or(1) };
        }
        out.push(scopes);
    }
    out
}

/// The scope of `needle` (the `nth` occurrence) on a one-line sample; every byte of it
/// must have the same scope.
fn scope(rules: &[Rule], line: &str, needle: &str) -> String {
    let scopes = tokenize(rules, line).remove(0);
    let s = line.find(needle).unwrap_or_else(|| panic!("{needle:?} in {line:?}"));
    let first = scopes[s].clone();
    for (i, sc) in scopes[s..s + needle.len()].iter().enumerate() {
        assert_eq!(
            sc,
            &first,
            "{needle:?} in {line:?} is split at byte {i}: {:?}",
            &scopes[s..s + needle.len()]
        );
    }
    first
}

#[test]
fn every_pattern_compiles_and_every_scope_is_ours() {
    let (g, rules) = load();
    assert_eq!(g["scopeName"], "source.kriegsspiel");
    assert!(rules.len() >= 10);
    fn names(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "name" {
                        if let Some(s) = x.as_str() {
                            out.push(s.to_string());
                        }
                    }
                    names(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| names(x, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    names(&g["repository"], &mut all);
    assert!(all.len() > 10);
    for n in all {
        assert!(n.ends_with(".kriegsspiel"), "{n}");
    }
}

#[test]
fn sample_lines_are_scoped() {
    let (_, r) = load();
    let anchor = "entity.name.section.anchor.kriegsspiel";
    let line = "§7.1.2 §7.1.2.B procedure attack(u: Unit) {";
    assert_eq!(scope(&r, line, "§7.1.2"), anchor, "{line}");
    assert_eq!(tokenize(&r, line)[0]["§7.1.2".len()], "", "the anchor ends before the space");
    assert_eq!(scope(&r, line, "§7.1.2.B"), anchor);
    assert_eq!(scope(&r, line, "procedure"), "storage.type.kriegsspiel");
    assert_eq!(scope(&r, line, "attack"), "entity.name.function.kriegsspiel");
    assert_eq!(scope(&r, line, "Unit"), "support.type.kriegsspiel");
    assert_eq!(scope(&r, line, "u:"), "");
    assert_eq!(scope(&r, "§Rule 11.F §Exclusive[12.] rating cs: 0..40", "§Rule 11.F"), anchor);
    assert_eq!(scope(&r, "§Rule 11.F §Exclusive[12.] rating cs: 0..40", "§Exclusive[12.]"), anchor);
    assert_eq!(
        scope(&r, "§Rule 11.F §Exclusive[12.] rating cs: 0..40", "40"),
        "constant.numeric.integer.kriegsspiel"
    );
    // A comment is a comment, with whatever it holds.
    let c = "  x = 1; // see §7.1 and \"this\" procedure";
    assert_eq!(scope(&r, c, "// see §7.1 and \"this\" procedure"), "comment.line.double-slash.kriegsspiel");
    // A string holds an anchor as text, and its escapes.
    let s = "  log \"at §7.1 \\\"x\\\" {}\", u;";
    assert_eq!(scope(&r, s, "at §7.1 "), "string.quoted.double.kriegsspiel");
    assert_eq!(scope(&r, s, "\\\""), "constant.character.escape.kriegsspiel");
    assert_eq!(scope(&r, s, "{}"), "constant.other.placeholder.kriegsspiel");
    assert_eq!(scope(&r, s, "log"), "keyword.other.kriegsspiel");
    assert_eq!(scope(&r, s, ", u;"), "", "the string ended");
    // Hex references, dice, keywords, constants.
    let m = "  if roll 2d6 >= 5 and not u has Engaged then move u to @0412; else return;";
    assert_eq!(scope(&r, m, "@0412"), "constant.other.hex.kriegsspiel");
    assert_eq!(scope(&r, m, "2d6"), "constant.numeric.dice.kriegsspiel");
    assert_eq!(scope(&r, m, "roll"), "keyword.control.kriegsspiel");
    assert_eq!(scope(&r, m, "if"), "keyword.control.kriegsspiel");
    assert_eq!(scope(&r, m, "has"), "keyword.operator.word.kriegsspiel");
    assert_eq!(scope(&r, m, ">="), "keyword.operator.kriegsspiel");
    assert_eq!(scope(&r, m, "Engaged"), "");
    assert_eq!(scope(&r, "  let ok = true;", "true"), "constant.language.kriegsspiel");
    // A name that only starts like a keyword is a name.
    assert_eq!(scope(&r, "  let format = units_at(h);", "format"), "");
    assert_eq!(scope(&r, "  let format = units_at(h);", "units_at"), "");
}

#[test]
fn reserved_words_and_declaration_keywords_are_keywords() {
    let (_, r) = load();
    let pest = std::fs::read_to_string(root().join("dsl/src/grammar.pest")).expect("grammar.pest");
    let quoted = Regex::new(r#""([a-z_]+)""#).expect("re");
    // The `keyword` rule: the reserved words.
    let start = pest.find("keyword = @{").expect("keyword rule");
    let block = &pest[start..start + pest[start..].find("~ !ident_char").expect("end of keyword rule")];
    let mut words: Vec<String> = quoted.captures_iter(block).map(|c| c[1].to_string()).collect();
    assert!(words.len() > 30, "{words:?}");
    // The first word of every declaration.
    let decl = Regex::new(r#"(?m)^[a-z_]+_decl\s*=\s*\{\s*"([a-z_]+)""#).expect("re");
    let decls: Vec<String> = decl.captures_iter(&pest).map(|c| c[1].to_string()).collect();
    assert!(decls.len() > 25, "{decls:?}");
    words.extend(decls);
    for w in words {
        let line = format!("  {w} ");
        let s = scope(&r, &line, &w);
        assert!(
            s.starts_with("keyword.") || s.starts_with("storage.") || s.starts_with("constant.language."),
            "{w} is scoped {s:?}"
        );
    }
}

#[test]
fn the_rulebooks_highlight_cleanly() {
    let (_, r) = load();
    let anchor = "entity.name.section.anchor.kriegsspiel";
    let mut files = 0;
    let mut anchors = 0;
    for book in ["peter-the-great", "frederick-the-great"] {
        let dir = root().join("rulebooks").join(book);
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("rulebook dir")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().map(|x| x == "ks").unwrap_or(false))
            .collect();
        paths.sort();
        for p in paths {
            files += 1;
            let text = std::fs::read_to_string(&p).expect("read");
            let scopes = tokenize(&r, &text);
            for (line, sc) in text.lines().zip(&scopes) {
                let t = line.trim_start();
                let at = line.len() - t.len();
                if t.starts_with("//") {
                    assert!(
                        sc[at..].iter().all(|s| s == "comment.line.double-slash.kriegsspiel"),
                        "{p:?}: {line}"
                    );
                }
                if t.starts_with('§') {
                    assert_eq!(sc[at], anchor, "{p:?}: {line}");
                    anchors += 1;
                }
                // No string runs on past its line.
                if !line.contains('"') {
                    assert!(
                        sc.iter().all(|s| !s.starts_with("string.")),
                        "{p:?}: a string leaked into {line}"
                    );
                }
            }
        }
    }
    assert!(files >= 30 && anchors > 500, "{files} files, {anchors} anchored lines");
}
