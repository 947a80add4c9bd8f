//! Parser tests: AST shapes for every declaration, statement and expression kind,
//! operator precedence, syntax-error diagnostics, and robustness properties.
//!
//! Run: `CARGO_TARGET_DIR=/work/target-dsl cargo test -p kriegsspiel-dsl --test parse`

use kriegsspiel_dsl::ast::*;
use kriegsspiel_dsl::{parse_file, Diagnostic, SourceMap};
use proptest::prelude::*;

/// The language tour from the parser brief: every construct at least once.
const EXAMPLE: &str = r#"rulebook "Peter the Great" { numbering dotted lettered; dice d6; }
contents {
  §1.0 "Introduction" waived "background, no rules"
  §7.1.2 "Procedure"
}
§2.1.2 sides { Swedish, Russian }
§2.1 rating cs: 0..40 "combat strength"
§3.3.1 classes { combat, infantry, cavalry, artillery, leader }
§2.1.3 unit RegularInfantry: combat, infantry steps 2
§2.2 marker Routed on unit
§10.5 track aml per side: 0..100
§4.1.B terrain Woods supplied "TEC absent from the text" { cost: 4, defense: 2/1, blocks_los: true }
§7.1.2 results CombatResult { NE, Ar, Dr, r, R, EX, DR }
§7.1.2 table CRT supplied "printed on a separate chart" {
  roll 1d6; result CombatResult; columns diff: ..-5 | -4..-3 | 0 | 6..;
  beyond rows clamp;
  rows { 1: Ar Ar Dr NE; 2-3: NE Dr DR DR; 4-6: r R EX DR; }
}
§7.3.2 modifiers column_shift(a: Attack) { -1 when crosses_any(a, Stream); §13.1.B +1 when turn == 1; cap -3..3; cumulative; }
§7.3 modifiers cs_terrain(u: Unit, h: Hex) { x1/2 when h.terrain == Woods; round up; }
§3.3.1.8 fn passes(u: Unit, r: Int) -> Bool = r <= u.mr + (if demoralized(u.side) then -1 else 0);
§9.2 procedure rally(side: Side) {
  for u in filter v in units(side) where v has Routed {
    let r = roll 1d6;
    §9.2.1.A if r <= u.mr { unmark u Routed; } else { remove u; }
  }
  let h = choose x in reachable(u) by side prefer -distance(x, @0607) or none "movement destination";
  let res = CRT[diff, r + drm];
  adjust aml[side] by -2; retreat u by 3; win other(side) "army broken"; log "rolled {}", r;
}
§4.0 movement { allowance: move_allowance; cost: move_cost; stop: must_stop; }
§7.4.2 retreat { enter: may_retreat_into; prefer: [end far_from_enemy, each not_in_ezoc]; }
§4.3 zone_of_control exerts_zoc;
§10.4 trigger broken once when aml[Russian] <= 0 { win Swedish "broken"; }
§3.0 sequence { turns scenario_turns() { for s in order() { §3.1.1.1 phase Movement(s) { call movement(s); } } } }
§7.1.1 ruling grouping "how attacks are formed" { default per_hex "one defending hex per attack"; multi "several hexes"; }
§2.0 map "Poltava" supplied "placeholder" { grid 40 x 41 even_down; default Clear; terrain Woods { 0305 0306 1010..1213 } hexside Stream { 0305|0306 path(0101 0102 0203) } region RussianSetup { 0101..4016 } edge south exit; }
§2.1 counters supplied "counter values" { Swedish "Livgardet I" RegularInfantry { cs: 6/3, mr: 5, ma: 4 } }
§14.4 scenario "14.4" "The Battle on June 22nd" { turns 11; order Russian, Swedish; start aml Russian 100, Swedish 70; flag camp false; §14.4.1 setup Russian supplied "one legal deployment" { "Preobrazhensky I" at 1205; "Creutz" enters turn 1 at 0441; } }
§7.3.C example "two halvings quarter a CS" { scenario "14.4"; place "Livgardet I" at 0505; dice 4 2; run resolve(unit("Livgardet I")); expect unit("Livgardet I").cs == 2; }
"#;

// ------------------------------------------------------------------ helpers

fn parse(text: &str) -> Rulebook {
    match parse_file(0, text) {
        Ok(b) => b,
        Err(d) => panic!("unexpected diagnostics for {text:?}:\n{d:#?}"),
    }
}

fn parse_err(text: &str) -> Vec<Diagnostic> {
    match parse_file(0, text) {
        Ok(_) => panic!("expected an error for {text:?}"),
        Err(d) => d,
    }
}

/// The one declaration of `text`.
fn decl(text: &str) -> Decl {
    let mut b = parse(text);
    assert_eq!(b.decls.len(), 1, "{text}");
    b.decls.remove(0)
}

fn slice(text: &str, s: Span) -> &str {
    &text[s.start as usize..s.end as usize]
}

fn names(v: &[Ident]) -> Vec<&str> {
    v.iter().map(|i| i.name.as_str()).collect()
}

/// An expression as an S-expression, for compact shape assertions.
fn sx(e: &Expr) -> String {
    use ExprKind as K;
    match &e.kind {
        K::Int(v) => v.to_string(),
        K::Bool(b) => b.to_string(),
        K::Str(s) => format!("{s:?}"),
        K::Hex(h) => format!("@{h}"),
        K::DrawFrom(c) => format!("(draw {})", c.name),
        K::Name(n) => n.clone(),
        K::Neg(x) => format!("(neg {})", sx(x)),
        K::Not(x) => format!("(not {})", sx(x)),
        K::Binary(op, a, b) => format!("({op:?} {} {})", sx(a), sx(b)),
        K::If(c, t, f) => format!("(if {} {} {})", sx(c), sx(t), sx(f)),
        K::Call(f, args) => {
            let a: Vec<String> = args.iter().map(sx).collect();
            format!("(call {} [{}])", f.name, a.join(" "))
        }
        K::Field(x, f) => format!("(. {} {})", sx(x), f.name),
        K::Index(t, a, b) => match b {
            Some(b) => format!("(idx {} {} {})", sx(t), sx(a), sx(b)),
            None => format!("(idx {} {})", sx(t), sx(a)),
        },
        K::Is(x, c) => format!("(is {} {})", sx(x), c.name),
        K::Has(x, c) => format!("(has {} {})", sx(x), c.name),
        K::Roll(d) => format!("(roll {}d{})", d.count, d.sides),
        K::RollPool { count, sides } => format!("(pool {} d{sides})", sx(count)),
        K::Let { name, value, body } => format!("(let {} {} {})", name.name, sx(value), sx(body)),
        K::Choose { var, from, by, prefer, or_none, what, .. } => format!(
            "(choose {} {} {} {} {} {:?})",
            var.name,
            sx(from),
            sx(by),
            prefer.as_ref().map(|p| sx(p)).unwrap_or_else(|| "-".into()),
            or_none,
            what
        ),
        K::Quant { q, var, iter, filter, body } => format!(
            "({q:?} {} {} {} {})",
            var.name,
            sx(iter),
            filter.as_ref().map(|p| sx(p)).unwrap_or_else(|| "-".into()),
            body.as_ref().map(|p| sx(p)).unwrap_or_else(|| "-".into()),
        ),
        K::List(xs) => {
            let a: Vec<String> = xs.iter().map(sx).collect();
            format!("[{}]", a.join(" "))
        }
    }
}

/// Parse `src` as the body of a function and return the expression.
fn expr_of(src: &str) -> (String, Expr) {
    let text = format!("§1 fn f() -> Int = {src};");
    let d = decl(&text);
    match d.kind {
        DeclKind::Fn { body, .. } => (text, body),
        k => panic!("not a fn: {k:?}"),
    }
}

fn ex(src: &str) -> String {
    sx(&expr_of(src).1)
}

/// The statements of a one-procedure file.
fn stmts(body: &str) -> (String, Vec<Stmt>) {
    let text = format!("§9 procedure p(side: Side) {{ {body} }}");
    let d = decl(&text);
    match d.kind {
        DeclKind::Procedure { body, .. } => (text, body.stmts),
        k => panic!("not a procedure: {k:?}"),
    }
}

fn stmt(body: &str) -> StmtKind {
    let (_, mut s) = stmts(body);
    assert_eq!(s.len(), 1, "{body}");
    s.remove(0).kind
}

/// Line, column (1-based) of a diagnostic.
fn line_col(text: &str, d: &Diagnostic) -> (usize, usize) {
    let mut sm = SourceMap::new();
    let id = sm.add("t.rules", text);
    assert_eq!(id, 0);
    sm.line_col(0, d.span.start as usize)
}

/// Assert one syntax error at `line:col` whose message contains `fragment`.
#[track_caller]
fn syntax_error(text: &str, line: usize, col: usize, fragment: &str) -> Diagnostic {
    let ds = parse_err(text);
    assert_eq!(ds.len(), 1, "{ds:#?}");
    let d = ds.into_iter().next().unwrap();
    assert_eq!(d.code, "E0001", "{d:#?}");
    assert_eq!(line_col(text, &d), (line, col), "{d:#?}");
    assert!(d.message.contains(fragment), "message {:?} lacks {fragment:?}", d.message);
    assert!(d.span.start <= d.span.end && d.span.end as usize <= text.len());
    d
}

/// Every `{start, end}` object in the JSON form of the AST lies inside the text.
fn check_ast_spans(book: &Rulebook, len: usize) {
    fn walk(v: &serde_json::Value, len: usize) {
        match v {
            serde_json::Value::Object(m) => {
                if let (Some(s), Some(e)) = (m.get("start"), m.get("end")) {
                    if let (Some(s), Some(e)) = (s.as_u64(), e.as_u64()) {
                        assert!(s <= e && e as usize <= len, "span {s}..{e} outside 0..{len}");
                    }
                }
                m.values().for_each(|x| walk(x, len));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, len)),
            _ => {}
        }
    }
    walk(&serde_json::to_value(book).unwrap(), len);
}

/// No AST span starts or ends with whitespace or a comment.
fn check_tight_spans(book: &Rulebook, text: &str) {
    fn walk(v: &serde_json::Value, text: &str) {
        match v {
            serde_json::Value::Object(m) => {
                if let (Some(s), Some(e)) = (m.get("start"), m.get("end")) {
                    if let (Some(s), Some(e)) = (s.as_u64(), e.as_u64()) {
                        let t = &text[s as usize..e as usize];
                        assert_eq!(t, t.trim(), "loose span {s}..{e}");
                        assert!(!t.is_empty(), "empty span at {s}");
                        let last_line = t.rsplit('\n').next().unwrap_or("");
                        assert!(!last_line.contains("//"), "span {s}..{e} ends in a comment: {t:?}");
                    }
                }
                m.values().for_each(|x| walk(x, text));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, text)),
            _ => {}
        }
    }
    walk(&serde_json::to_value(book).unwrap(), text);
}

fn check_diag_spans(ds: &[Diagnostic], len: usize) {
    assert!(!ds.is_empty());
    for d in ds {
        assert!(d.span.start <= d.span.end, "{d:?}");
        assert!(d.span.end as usize <= len, "{d:?} outside 0..{len}");
        assert!(d.code.starts_with('E'));
    }
}

// ------------------------------------------------------------------ the whole tour

#[test]
fn the_language_tour_parses() {
    let b = parse(EXAMPLE);
    assert_eq!(b.headers.len(), 1);
    assert_eq!(b.contents.len(), 2);
    assert_eq!(b.decls.len(), 23);
    let anchors: Vec<&str> = b.decls.iter().map(|d| d.anchors[0].text.as_str()).collect();
    assert_eq!(
        anchors,
        [
            "2.1.2", "2.1", "3.3.1", "2.1.3", "2.2", "10.5", "4.1.B", "7.1.2", "7.1.2", "7.3.2", "7.3",
            "3.3.1.8", "9.2", "4.0", "7.4.2", "4.3", "10.4", "3.0", "7.1.1", "2.0", "2.1", "14.4", "7.3.C"
        ]
    );
    check_ast_spans(&b, EXAMPLE.len());
    check_tight_spans(&b, EXAMPLE);
    // Every declaration's span starts at its `§` and every anchor span is `§` + text.
    for d in &b.decls {
        assert!(slice(EXAMPLE, d.span).starts_with('§'));
        assert_eq!(d.span.start, d.anchors[0].span.start);
        assert_eq!(slice(EXAMPLE, d.anchors[0].span), format!("§{}", d.anchors[0].text));
    }
    let last = b.decls.last().unwrap();
    assert!(slice(EXAMPLE, last.span).ends_with("== 2; }"));
}

// ------------------------------------------------------------------ header, contents, anchors

#[test]
fn header_and_contents() {
    let text = "rulebook \"Torgau\" { numbering rule lettered; dice 2d10; }\n\
                contents { §1.0 \"Introduction\" waived \"background\"\n  §Rule 11 \"Melee\" }";
    let b = parse(text);
    let h = &b.headers[0];
    assert_eq!(h.title, "Torgau");
    assert_eq!(names(&h.numbering), ["rule", "lettered"]);
    let dice = h.dice.unwrap();
    assert_eq!((dice.count, dice.sides), (2, 10));
    assert_eq!(slice(text, dice.span), "2d10");
    assert_eq!(slice(text, h.span), "rulebook \"Torgau\" { numbering rule lettered; dice 2d10; }");
    assert_eq!(b.contents.len(), 2);
    let c0 = &b.contents[0];
    assert_eq!((c0.anchor.text.as_str(), c0.title.as_str()), ("1.0", "Introduction"));
    assert_eq!(c0.waived.as_deref(), Some("background"));
    assert_eq!(slice(text, c0.span), "§1.0 \"Introduction\" waived \"background\"");
    assert_eq!(b.contents[1].anchor.text, "Rule 11");
    assert_eq!(b.contents[1].waived, None);
    assert_eq!(slice(text, b.contents[1].span), "§Rule 11 \"Melee\"");
}

#[test]
fn header_dice_without_count_is_one_die() {
    let b = parse("rulebook \"P\" { dice d6; }");
    let d = b.headers[0].dice.unwrap();
    assert_eq!((d.count, d.sides), (1, 6));
}

#[test]
fn anchor_styles_are_normalised() {
    let text = "§Rule   11 F §Exclusive[12.] §[45.] §13.0.B §7.1.2 sides { A }";
    let d = decl(text);
    let a: Vec<&str> = d.anchors.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(a, ["Rule 11 F", "Exclusive[12.]", "[45.]", "13.0.B", "7.1.2"]);
    assert_eq!(slice(text, d.anchors[0].span), "§Rule   11 F");
    assert_eq!(slice(text, d.anchors[1].span), "§Exclusive[12.]");
    assert_eq!(slice(text, d.span), text);
    assert_eq!(decl("§Rule 11.F sides { A }").anchors[0].text, "Rule 11.F");
}

#[test]
fn comments_and_whitespace_are_ignored() {
    let text = "// Peter the Great\n§2.1.2 sides { // the two armies\n Swedish,\tRussian, }\r\n";
    match decl(text).kind {
        DeclKind::Sides(s) => assert_eq!(names(&s), ["Swedish", "Russian"]),
        k => panic!("{k:?}"),
    }
}

#[test]
fn spans_exclude_trailing_whitespace_and_comments() {
    let text =
        "§2.1.3 unit Inf: combat, infantry  // trailing comment\n\n§2.1 rating cs: 0..40 \n  // note\n\
                §3 fn f() -> Int = a + b   // why\n  ;\n§9 procedure p() { if a { } else { }  // c\n }";
    let b = parse(text);
    check_tight_spans(&b, text);
    assert_eq!(slice(text, b.decls[0].span), "§2.1.3 unit Inf: combat, infantry");
    assert_eq!(slice(text, b.decls[1].span), "§2.1 rating cs: 0..40");
    let DeclKind::Fn { body, .. } = &b.decls[2].kind else { panic!() };
    assert_eq!(slice(text, body.span), "a + b");
    // The same file with the tour's spans checked under `// comments` everywhere.
    let commented = EXAMPLE.replace(";", "; // c\n").replace("}", "} // c\n");
    check_tight_spans(&parse(&commented), &commented);
}

#[test]
fn strings_are_unescaped() {
    let text = r#"§1 example "a \"quoted\" back\\slash \n" { scenario "x"; }"#;
    match decl(text).kind {
        DeclKind::Example(e) => assert_eq!(e.title, "a \"quoted\" back\\slash \\n"),
        k => panic!("{k:?}"),
    }
}

// ------------------------------------------------------------------ entity declarations

#[test]
fn sides_rating_classes_unit_marker_track() {
    let text = "§2.1.2 sides { Swedish, Russian }\n\
                §2.1 rating cs: 0..40 \"combat strength\"\n\
                §2.1 rating mr: 1..9\n\
                §3.3.1 classes { combat, infantry }\n\
                §2.1.3 unit RegularInfantry: combat, infantry steps 2\n\
                §2.1.4 unit Leader: leader\n\
                §2.2 marker Routed on unit\n\
                §2.3 marker Fort on hex\n\
                §2.4 marker Demoralized on side\n\
                §10.5 track aml per side: 0..100\n\
                §10.6 track turn: 1..11";
    let b = parse(text);
    let k: Vec<&DeclKind> = b.decls.iter().map(|d| &d.kind).collect();
    match k[0] {
        DeclKind::Sides(s) => assert_eq!(names(s), ["Swedish", "Russian"]),
        k => panic!("{k:?}"),
    }
    match k[1] {
        DeclKind::Rating { name, range, doc } => {
            assert_eq!(name.name, "cs");
            assert_eq!(slice(text, name.span), "cs");
            assert_eq!((range.lo, range.hi), (0, 40));
            assert_eq!(slice(text, range.span), "0..40");
            assert_eq!(doc.as_deref(), Some("combat strength"));
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(k[2], DeclKind::Rating { doc: None, .. }));
    match k[3] {
        DeclKind::Classes(c) => assert_eq!(names(c), ["combat", "infantry"]),
        k => panic!("{k:?}"),
    }
    match k[4] {
        DeclKind::Unit { name, classes, steps } => {
            assert_eq!(name.name, "RegularInfantry");
            assert_eq!(names(classes), ["combat", "infantry"]);
            let (n, s) = steps.unwrap();
            assert_eq!((n, slice(text, s)), (2, "2"));
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(k[5], DeclKind::Unit { steps: None, .. }));
    let targets: Vec<MarkerTarget> = k[6..9]
        .iter()
        .map(|k| match k {
            DeclKind::Marker { target, .. } => *target,
            k => panic!("{k:?}"),
        })
        .collect();
    assert_eq!(targets, [MarkerTarget::Unit, MarkerTarget::Hex, MarkerTarget::Side]);
    match k[9] {
        DeclKind::Track { name, per_side, per_unit, values: TrackValues::Range(range), .. } => {
            assert!(!per_unit);
            assert_eq!((name.name.as_str(), *per_side, range.lo, range.hi), ("aml", true, 0, 100))
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(k[10], DeclKind::Track { per_side: false, .. }));
}

#[test]
fn terrain_hexside_results() {
    let text = "§4.1.B terrain Woods supplied \"TEC absent\" { cost: 4, defense: 2/1, blocks_los: true, \
                label: \"W\", kind: forest, }\n\
                §4.2 hexside Stream { cost: -1 }\n\
                §4.3 terrain Clear {}\n\
                §7.1.2 results CombatResult { NE, Ar, DR }";
    let b = parse(text);
    match &b.decls[0].kind {
        DeclKind::Terrain { name, supplied, attrs } => {
            assert_eq!(name.name, "Woods");
            let s = supplied.as_ref().unwrap();
            assert_eq!(s.reason, "TEC absent");
            assert_eq!(slice(text, s.span), "supplied \"TEC absent\"");
            let vals: Vec<(&str, &LiteralKind)> =
                attrs.iter().map(|a| (a.name.name.as_str(), &a.value.kind)).collect();
            assert_eq!(
                vals,
                [
                    ("cost", &LiteralKind::Int(4)),
                    ("defense", &LiteralKind::Ratio(2, 1)),
                    ("blocks_los", &LiteralKind::Bool(true)),
                    ("label", &LiteralKind::Str("W".into())),
                    ("kind", &LiteralKind::Name("forest".into())),
                ]
            );
            assert_eq!(slice(text, attrs[1].value.span), "2/1");
        }
        k => panic!("{k:?}"),
    }
    match &b.decls[1].kind {
        DeclKind::Hexside { name, supplied: None, attrs } => {
            assert_eq!(name.name, "Stream");
            assert_eq!(attrs[0].value.kind, LiteralKind::Int(-1));
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(&b.decls[2].kind, DeclKind::Terrain { attrs, .. } if attrs.is_empty()));
    match &b.decls[3].kind {
        DeclKind::Results { name, codes } => {
            assert_eq!(name.name, "CombatResult");
            assert_eq!(names(codes), ["NE", "Ar", "DR"]);
        }
        k => panic!("{k:?}"),
    }
}

// ------------------------------------------------------------------ tables

#[test]
fn table_with_columns_rows_and_beyond() {
    let text = "§7.1.2 table CRT supplied \"separate chart\" {\n\
                roll 1d6; result CombatResult; columns diff: ..-5 | -4..-3 | 0 | 6..;\n\
                beyond rows clamp; beyond columns error;\n\
                rows { 1: Ar Ar Dr NE; 2-3: NE Dr DR DR; 4-6: r R EX DR; }\n}";
    let t = match decl(text).kind {
        DeclKind::Table(t) => t,
        k => panic!("{k:?}"),
    };
    assert_eq!(t.name.name, "CRT");
    assert_eq!(t.supplied.unwrap().reason, "separate chart");
    let roll = t.roll.unwrap();
    assert_eq!((roll.count, roll.sides, slice(text, roll.span)), (1, 6, "1d6"));
    assert_eq!(t.result.unwrap().name, "CombatResult");
    let cols = t.columns.unwrap();
    assert_eq!(cols.key.name, "diff");
    let ranges: Vec<(Option<i64>, Option<i64>)> = cols.ranges.iter().map(|r| (r.lo, r.hi)).collect();
    assert_eq!(ranges, [(None, Some(-5)), (Some(-4), Some(-3)), (Some(0), Some(0)), (Some(6), None)]);
    let spans: Vec<&str> = cols.ranges.iter().map(|r| slice(text, r.span)).collect();
    assert_eq!(spans, ["..-5", "-4..-3", "0", "6.."]);
    assert_eq!(slice(text, cols.span), "columns diff: ..-5 | -4..-3 | 0 | 6..;");
    assert_eq!(t.beyond_rows.unwrap().0, Beyond::Clamp);
    assert_eq!(slice(text, t.beyond_rows.unwrap().1), "beyond rows clamp;");
    assert_eq!(t.beyond_columns.unwrap().0, Beyond::Error);
    let keys: Vec<(i64, i64)> = t.rows.iter().map(|r| (r.lo, r.hi)).collect();
    assert_eq!(keys, [(1, 1), (2, 3), (4, 6)]);
    assert_eq!(slice(text, t.rows[1].key_span), "2-3");
    assert_eq!(slice(text, t.rows[1].span), "2-3: NE Dr DR DR;");
    let cells: Vec<&str> = t.rows[2].cells.iter().map(|c| slice(text, c.span())).collect();
    assert_eq!(cells, ["r", "R", "EX", "DR"]);
}

#[test]
fn table_with_integer_cells() {
    let text = "§9.1 table Rally { roll 2d6; rows { 2-7: 0 -1; 8-12: 1 2; } }";
    let t = match decl(text).kind {
        DeclKind::Table(t) => t,
        k => panic!("{k:?}"),
    };
    assert!(t.result.is_none() && t.columns.is_none() && t.beyond_rows.is_none());
    assert!(matches!(t.rows[0].cells[1], Cell::Int(-1, _)));
    assert!(matches!(t.rows[1].cells[0], Cell::Int(1, _)));
}

// ------------------------------------------------------------------ modifiers

#[test]
fn modifiers_add_mul_cap_round_mode() {
    let text = "§7.3.2 modifiers column_shift(a: Attack) { -1 when crosses_any(a, Stream); \
                §13.1.B +1 when turn == 1; +lr when true; cap -3..3; cumulative; }\n\
                §7.3 modifiers cs_terrain(u: Unit, h: Hex) { x1/2 when h.terrain == Woods; \
                x2 when u is Guard; round up; best; }";
    let b = parse(text);
    let m = match &b.decls[0].kind {
        DeclKind::Modifiers(m) => m,
        k => panic!("{k:?}"),
    };
    assert_eq!(m.name.name, "column_shift");
    assert_eq!(m.params[0].name.name, "a");
    assert!(matches!(&m.params[0].ty, TypeExpr::Named(t) if t.name == "Attack"));
    assert_eq!(m.lines.len(), 3);
    assert!(matches!(m.lines[0].effect, ModEffect::Add { negative: true, amount: AddAmount::Int(1) }));
    assert_eq!(sx(&m.lines[0].when), "(call crosses_any [a Stream])");
    assert!(m.lines[0].anchor.is_none());
    assert_eq!(m.lines[1].anchor.as_ref().unwrap().text, "13.1.B");
    assert_eq!(slice(text, m.lines[1].span), "§13.1.B +1 when turn == 1;");
    assert!(matches!(m.lines[1].effect, ModEffect::Add { negative: false, amount: AddAmount::Int(1) }));
    assert!(matches!(&m.lines[2].effect,
        ModEffect::Add { negative: false, amount: AddAmount::Name(n) } if n.name == "lr"));
    let cap = m.cap.unwrap();
    assert_eq!((cap.lo, cap.hi), (-3, 3));
    assert!(m.round.is_none());
    assert!(!m.best_only);

    let m = match &b.decls[1].kind {
        DeclKind::Modifiers(m) => m,
        k => panic!("{k:?}"),
    };
    assert!(matches!(m.lines[0].effect, ModEffect::Mul { num: 1, den: 2 }));
    assert!(matches!(m.lines[1].effect, ModEffect::Mul { num: 2, den: 1 }));
    assert_eq!(sx(&m.lines[0].when), "(Eq (. h terrain) Woods)");
    assert_eq!(m.round.unwrap().0, RoundDir::Up);
    assert_eq!(slice(text, m.round.unwrap().1), "round up;");
    assert!(m.best_only);
    assert!(m.cap.is_none());
}

// ------------------------------------------------------------------ functions and hooks

#[test]
fn fn_and_procedure_declarations() {
    let text = "§3.3.1.8 fn passes(u: Unit, r: Int) -> Bool = r <= u.mr;\n\
                §3.4 fn all_units() -> List<List<Unit>> = [];\n\
                §9.2 procedure rally(side: Side) { return; }\n§9.3 procedure nothing() { }";
    let b = parse(text);
    match &b.decls[0].kind {
        DeclKind::Fn { name, params, ret, body } => {
            assert_eq!(name.name, "passes");
            let p: Vec<&str> = params.iter().map(|p| p.name.name.as_str()).collect();
            assert_eq!(p, ["u", "r"]);
            assert!(matches!(ret, TypeExpr::Named(t) if t.name == "Bool"));
            assert_eq!(sx(body), "(Le r (. u mr))");
            assert_eq!(slice(text, body.span), "r <= u.mr");
        }
        k => panic!("{k:?}"),
    }
    match &b.decls[1].kind {
        DeclKind::Fn { ret: TypeExpr::List(inner, span), params, .. } => {
            assert!(params.is_empty());
            assert_eq!(slice(text, *span), "List<List<Unit>>");
            assert!(matches!(&**inner, TypeExpr::List(u, _)
                if matches!(&**u, TypeExpr::Named(n) if n.name == "Unit")));
        }
        k => panic!("{k:?}"),
    }
    match &b.decls[2].kind {
        DeclKind::Procedure { name, params, ret: None, body } => {
            assert_eq!(name.name, "rally");
            assert_eq!(params.len(), 1);
            assert!(matches!(body.stmts[0].kind, StmtKind::Return(None)));
            assert_eq!(slice(text, body.span), "{ return; }");
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(&b.decls[3].kind, DeclKind::Procedure { body, .. } if body.stmts.is_empty()));
}

#[test]
fn movement_retreat_zoc_hooks() {
    let text = "§4.0 movement { allowance: move_allowance; cost: move_cost; }\n\
                §7.4.2 retreat { enter: may_retreat_into; prefer: [end far_from_enemy, each not_in_ezoc, ending]; }\n\
                §4.3 zone_of_control exerts_zoc;";
    let b = parse(text);
    match &b.decls[0].kind {
        DeclKind::Movement(h) => {
            let n: Vec<&str> = h.iter().map(|h| h.name.name.as_str()).collect();
            assert_eq!(n, ["allowance", "cost"]);
            assert!(matches!(&h[1].value, HookValue::Fn(f) if f.name == "move_cost"));
        }
        k => panic!("{k:?}"),
    }
    match &b.decls[1].kind {
        DeclKind::Retreat(h) => {
            assert_eq!(h[1].name.name, "prefer");
            assert_eq!(slice(text, h[1].name.span), "prefer");
            let HookValue::List(items) = &h[1].value else { panic!("{:?}", h[1].value) };
            let got: Vec<(Option<HookScope>, &str)> =
                items.iter().map(|(s, i)| (*s, i.name.as_str())).collect();
            assert_eq!(
                got,
                [
                    (Some(HookScope::End), "far_from_enemy"),
                    (Some(HookScope::Each), "not_in_ezoc"),
                    (None, "ending"),
                ]
            );
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(&b.decls[2].kind, DeclKind::ZoneOfControl(i) if i.name == "exerts_zoc"));
}

#[test]
fn trigger_sequence_ruling() {
    let text = "§10.4 trigger broken once when aml[Russian] <= 0 { win Swedish \"broken\"; }\n\
                §10.5 trigger check when true { draw \"time\"; }\n\
                §3.0 sequence { turns scenario_turns() { for s in order() { §3.1.1.1 phase Movement(s) { call movement(s); } } } }\n\
                §7.1.1 ruling grouping \"how attacks are formed\" { default per_hex \"one hex\"; multi \"several\"; default_ish \"x\"; }";
    let b = parse(text);
    match &b.decls[0].kind {
        DeclKind::Trigger { name, once, when, body, .. } => {
            assert_eq!(name.name, "broken");
            assert!(once);
            assert_eq!(sx(when), "(Le (idx aml Russian) 0)");
            assert!(matches!(&body.stmts[0].kind, StmtKind::Win { reason, .. } if reason == "broken"));
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(&b.decls[1].kind, DeclKind::Trigger { once: false, .. }));
    match &b.decls[2].kind {
        DeclKind::Sequence(block) => {
            let StmtKind::Turns { count, body } = &block.stmts[0].kind else { panic!() };
            assert_eq!(sx(count), "(call scenario_turns [])");
            let StmtKind::For { var, iter, body } = &body.stmts[0].kind else { panic!() };
            assert_eq!((var.name.as_str(), sx(iter).as_str()), ("s", "(call order [])"));
            let phase = &body.stmts[0];
            assert_eq!(phase.anchor.as_ref().unwrap().text, "3.1.1.1");
            assert!(slice(text, phase.span).starts_with("§3.1.1.1 phase Movement(s)"));
            let StmtKind::Phase { name, side, body } = &phase.kind else { panic!() };
            assert_eq!((name.name.as_str(), sx(side).as_str()), ("Movement", "s"));
            assert!(matches!(&body.stmts[0].kind,
                StmtKind::Call { name, args } if name.name == "movement" && args.len() == 1));
        }
        k => panic!("{k:?}"),
    }
    match &b.decls[3].kind {
        DeclKind::Ruling(r) => {
            assert_eq!((r.name.name.as_str(), r.question.as_str()), ("grouping", "how attacks are formed"));
            let alts: Vec<(bool, &str, &str)> = r
                .alternatives
                .iter()
                .map(|a| (a.is_default, a.name.name.as_str(), a.reading.as_str()))
                .collect();
            assert_eq!(
                alts,
                [(true, "per_hex", "one hex"), (false, "multi", "several"), (false, "default_ish", "x")]
            );
        }
        k => panic!("{k:?}"),
    }
}

// ------------------------------------------------------------------ map, counters, scenarios

#[test]
fn map_declaration() {
    let text = "§2.0 map \"Poltava\" supplied \"placeholder\" { grid 40 x 41 even_down; default Clear; \
                terrain Woods { 0305 0306 1010..1213 } hexside Stream { 0305|0306 path(0101 0102 0203) } \
                region RussianSetup { 0101..4016 } edge south exit; edge north exit; }";
    let d = decl(text);
    let m = match d.kind {
        DeclKind::Map(m) => m,
        k => panic!("{k:?}"),
    };
    assert_eq!(m.title, "Poltava");
    assert_eq!(m.supplied.unwrap().reason, "placeholder");
    let g = m.grid.unwrap();
    assert_eq!((g.cols, g.rows, g.even_down), (40, 41, true));
    assert_eq!(slice(text, g.span), "grid 40 x 41 even_down;");
    assert_eq!(m.default_terrain.unwrap().name, "Clear");
    let (tn, hexes) = &m.terrain[0];
    assert_eq!(tn.name, "Woods");
    assert!(matches!(&hexes[0], HexItem::One(h) if h.text == "0305"));
    match &hexes[2] {
        HexItem::Rect(a, b) => {
            assert_eq!((a.text.as_str(), b.text.as_str()), ("1010", "1213"));
            assert_eq!(slice(text, b.span), "1213");
        }
        h => panic!("{h:?}"),
    }
    let (sn, sides) = &m.hexsides[0];
    assert_eq!(sn.name, "Stream");
    assert!(matches!(&sides[0], SideItem::Pair(a, b) if a.text == "0305" && b.text == "0306"));
    assert!(matches!(&sides[1], SideItem::Path(p) if p.len() == 3 && p[2].text == "0203"));
    assert_eq!(m.regions[0].0.name, "RussianSetup");
    assert_eq!(names(&m.exit_edges), ["south", "north"]);
    assert!(slice(text, m.span).starts_with("map \"Poltava\""));
    assert!(matches!(
        decl("§2 map \"M\" { grid 1 x 1 odd_down; }").kind,
        DeclKind::Map(Map { grid: Some(Grid { even_down: false, .. }), .. })
    ));
}

#[test]
fn counters_declaration() {
    let text = "§2.1 counters supplied \"counter values\" { Swedish \"Livgardet I\" RegularInfantry { cs: 6/3, mr: 5, ma: 4 } \
                Russian \"Creutz\" Leader { lr: 2 } }";
    match decl(text).kind {
        DeclKind::Counters { supplied, counters } => {
            assert_eq!(supplied.unwrap().reason, "counter values");
            let c = &counters[0];
            assert_eq!((c.side.name.as_str(), c.name.as_str()), ("Swedish", "Livgardet I"));
            assert_eq!(slice(text, c.name_span), "\"Livgardet I\"");
            assert_eq!(c.unit_type.name, "RegularInfantry");
            let v: Vec<(&str, &[i64])> =
                c.values.iter().map(|(n, v)| (n.name.as_str(), v.as_slice())).collect();
            assert_eq!(v, [("cs", &[6, 3][..]), ("mr", &[5][..]), ("ma", &[4][..])]);
            assert!(slice(text, c.span).starts_with("Swedish") && slice(text, c.span).ends_with('}'));
            assert_eq!(counters.len(), 2);
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn scenario_declaration() {
    let text = "§14.4 scenario \"14.4\" \"The Battle on June 22nd\" { turns 11; order Russian, Swedish; \
                start aml Russian 100, Swedish 70; flag camp false; flag fog true; \
                §14.4.1 setup Russian supplied \"one legal deployment\" { \"Preobrazhensky I\" at 1205; \
                \"Creutz\" enters turn 1 at 0441; } setup Swedish { } }";
    let s = match decl(text).kind {
        DeclKind::Scenario(s) => s,
        k => panic!("{k:?}"),
    };
    assert_eq!((s.id.as_str(), s.title.as_str()), ("14.4", "The Battle on June 22nd"));
    let (t, ts) = s.turns.unwrap();
    assert_eq!((t, slice(text, ts)), (11, "11"));
    assert_eq!(names(&s.order), ["Russian", "Swedish"]);
    let tr = &s.track_starts[0];
    assert_eq!(tr.track.name, "aml");
    let v: Vec<(&str, i64)> = tr.values.iter().map(|(n, v)| (n.name.as_str(), *v)).collect();
    assert_eq!(v, [("Russian", 100), ("Swedish", 70)]);
    assert_eq!(slice(text, tr.span), "start aml Russian 100, Swedish 70;");
    let f: Vec<(&str, bool)> = s.flags.iter().map(|(n, b)| (n.name.as_str(), *b)).collect();
    assert_eq!(f, [("camp", false), ("fog", true)]);
    assert_eq!(s.setups.len(), 2);
    let su = &s.setups[0];
    assert_eq!(su.anchor.as_ref().unwrap().text, "14.4.1");
    assert_eq!(su.side.name, "Russian");
    assert_eq!(su.supplied.as_ref().unwrap().reason, "one legal deployment");
    assert!(slice(text, su.span).starts_with("§14.4.1 setup"));
    let p = &su.placements;
    assert_eq!(
        (p[0].unit.as_str(), p[0].hex.text.as_str(), p[0].enters_turn),
        ("Preobrazhensky I", "1205", None)
    );
    assert_eq!(slice(text, p[0].unit_span), "\"Preobrazhensky I\"");
    assert_eq!((p[1].unit.as_str(), p[1].hex.text.as_str(), p[1].enters_turn), ("Creutz", "0441", Some(1)));
    assert!(s.setups[1].anchor.is_none() && s.setups[1].placements.is_empty());
}

#[test]
fn example_declaration() {
    let text =
        "§7.3.C example \"two halvings quarter a CS\" { scenario \"14.4\"; place \"Livgardet I\" at 0505; \
                dice 4 2; run resolve(unit(\"Livgardet I\"), 2); expect unit(\"Livgardet I\").cs == 2; }";
    let e = match decl(text).kind {
        DeclKind::Example(e) => e,
        k => panic!("{k:?}"),
    };
    assert_eq!(e.title, "two halvings quarter a CS");
    assert!(
        matches!(&e.items[0], ExampleItem::Scenario(s, sp) if s == "14.4" && slice(text, *sp) == "scenario \"14.4\";")
    );
    assert!(
        matches!(&e.items[1], ExampleItem::Place { unit, hex, .. } if unit == "Livgardet I" && hex.text == "0505")
    );
    assert!(matches!(&e.items[2], ExampleItem::Dice(d, _) if d == &[4, 2]));
    match &e.items[3] {
        ExampleItem::Run { procedure, args, span } => {
            assert_eq!(procedure.name, "resolve");
            let a: Vec<String> = args.iter().map(sx).collect();
            assert_eq!(a, ["(call unit [\"Livgardet I\"])", "2"]);
            assert_eq!(slice(text, *span), "run resolve(unit(\"Livgardet I\"), 2);");
        }
        i => panic!("{i:?}"),
    }
    match &e.items[4] {
        ExampleItem::Expect(x) => assert_eq!(sx(x), "(Eq (. (call unit [\"Livgardet I\"]) cs) 2)"),
        i => panic!("{i:?}"),
    }
}

// ------------------------------------------------------------------ statements

#[test]
fn let_set_and_simple_statements() {
    let (text, s) = stmts(
        "let r = roll 1d6; set r = r + 1; return; move u to @0412; eliminate u; remove u; \
         lose_step u; mark u Routed; unmark u Routed; win other(side) \"army broken\"; \
         draw \"time ran out\"; log \"rolled {} and {}\", r, 2; log \"plain\";",
    );
    let k: Vec<&StmtKind> = s.iter().map(|s| &s.kind).collect();
    assert!(matches!(k[0], StmtKind::Let { name, value } if name.name == "r" && sx(value) == "(roll 1d6)"));
    assert!(matches!(k[1], StmtKind::Set { name, value } if name.name == "r" && sx(value) == "(Add r 1)"));
    assert!(matches!(k[2], StmtKind::Return(None)));
    assert!(matches!(k[3], StmtKind::Move { unit, to } if sx(unit) == "u" && sx(to) == "@0412"));
    assert!(matches!(k[4], StmtKind::Eliminate(e) if sx(e) == "u"));
    assert!(matches!(k[5], StmtKind::Remove(e) if sx(e) == "u"));
    assert!(matches!(k[6], StmtKind::LoseStep(e) if sx(e) == "u"));
    assert!(
        matches!(k[7], StmtKind::Mark { target, marker } if sx(target) == "u" && marker.name == "Routed")
    );
    assert!(matches!(k[8], StmtKind::Unmark { marker, .. } if marker.name == "Routed"));
    assert!(
        matches!(k[9], StmtKind::Win { side, reason } if sx(side) == "(call other [side])" && reason == "army broken")
    );
    assert!(matches!(k[10], StmtKind::Draw { reason } if reason == "time ran out"));
    match k[11] {
        StmtKind::Log { message, args } => {
            assert_eq!(message, "rolled {} and {}");
            assert_eq!(args.iter().map(sx).collect::<Vec<_>>(), ["r", "2"]);
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(k[12], StmtKind::Log { args, .. } if args.is_empty()));
    assert_eq!(slice(&text, s[3].span), "move u to @0412;");
}

#[test]
fn control_flow_statements() {
    let (text, s) = stmts(
        "§9.2.1.A if r <= u.mr { unmark u Routed; } else if r == 6 { remove u; } else { return; }\n\
         if x { }\n\
         for u in filter v in units(side) where v has Routed { lose_step u; }\n\
         while count u in units(side) > 0 { eliminate u; }\n\
         turns 12 { phase Combat(side) { call resolve(side, 2); } }",
    );
    let StmtKind::If { cond, then, els } = &s[0].kind else { panic!("{:?}", s[0]) };
    assert_eq!(s[0].anchor.as_ref().unwrap().text, "9.2.1.A");
    assert!(slice(&text, s[0].span).starts_with("§9.2.1.A if"));
    assert_eq!(sx(cond), "(Le r (. u mr))");
    assert_eq!(then.stmts.len(), 1);
    let els = els.as_ref().unwrap();
    assert_eq!(els.stmts.len(), 1);
    assert!(slice(&text, els.span).starts_with("if r == 6"));
    let StmtKind::If { els: Some(last), .. } = &els.stmts[0].kind else { panic!() };
    assert!(matches!(last.stmts[0].kind, StmtKind::Return(None)));
    assert!(matches!(&s[1].kind, StmtKind::If { els: None, then, .. } if then.stmts.is_empty()));
    match &s[2].kind {
        StmtKind::For { var, iter, body } => {
            assert_eq!(var.name, "u");
            assert_eq!(sx(iter), "(Filter v (call units [side]) (has v Routed) -)");
            assert_eq!(body.stmts.len(), 1);
        }
        k => panic!("{k:?}"),
    }
    match &s[3].kind {
        StmtKind::While { cond, .. } => {
            assert_eq!(sx(cond), "(Gt (Count u (call units [side]) - -) 0)")
        }
        k => panic!("{k:?}"),
    }
    match &s[4].kind {
        StmtKind::Turns { count, body } => {
            assert_eq!(sx(count), "12");
            let StmtKind::Phase { name, side, body } = &body.stmts[0].kind else { panic!() };
            assert_eq!((name.name.as_str(), sx(side).as_str()), ("Combat", "side"));
            assert!(matches!(&body.stmts[0].kind, StmtKind::Call { args, .. } if args.len() == 2));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn adjust_and_retreat_statements() {
    match stmt("adjust aml[side] by -2;") {
        StmtKind::Adjust { track, index, index2: None, by } => {
            assert_eq!(track.name, "aml");
            assert_eq!(sx(&index.unwrap()), "side");
            assert_eq!(sx(&by), "-2");
        }
        k => panic!("{k:?}"),
    }
    match stmt("adjust crossed[side, North] by 1;") {
        StmtKind::Adjust { index: Some(a), index2: Some(b), by, .. } => {
            assert_eq!((sx(&a), sx(&b), sx(&by)), ("side".into(), "North".into(), "1".into()))
        }
        k => panic!("{k:?}"),
    }
    match stmt("adjust turn by 1;") {
        StmtKind::Adjust { index: None, by, .. } => assert_eq!(sx(&by), "1"),
        k => panic!("{k:?}"),
    }
    match stmt("retreat u by 3;") {
        StmtKind::Retreat { unit, hexes, .. } => {
            assert_eq!((sx(&unit), sx(&hexes)), ("u".into(), "3".into()))
        }
        k => panic!("{k:?}"),
    }
}

// ------------------------------------------------------------------ expressions

#[test]
fn expression_kinds() {
    assert_eq!(ex("42"), "42");
    assert_eq!(ex("true"), "true");
    assert_eq!(ex("false"), "false");
    assert_eq!(ex("\"text\""), "\"text\"");
    assert_eq!(ex("@0412"), "@0412");
    assert_eq!(ex("@041203"), "@041203");
    assert_eq!(ex("name"), "name");
    assert_eq!(ex("-x"), "(neg x)");
    assert_eq!(ex("-5"), "-5");
    assert_eq!(ex("- -5"), "(neg -5)");
    assert_eq!(ex("not x"), "(not x)");
    assert_eq!(ex("if a then 1 else 2"), "(if a 1 2)");
    assert_eq!(ex("f()"), "(call f [])");
    assert_eq!(ex("f(a, b + 1)"), "(call f [a (Add b 1)])");
    assert_eq!(ex("u.side.name"), "(. (. u side) name)");
    assert_eq!(ex("CRT[diff]"), "(idx CRT diff)");
    assert_eq!(ex("CRT[diff, r + drm]"), "(idx CRT diff (Add r drm))");
    assert_eq!(ex("u is Infantry"), "(is u Infantry)");
    assert_eq!(ex("u has Routed"), "(has u Routed)");
    assert_eq!(ex("roll 2d6"), "(roll 2d6)");
    assert_eq!(ex("roll d6"), "(roll 1d6)");
    assert_eq!(
        ex("choose x in reachable(u) by side prefer -distance(x, @0607) or none \"destination\""),
        "(choose x (call reachable [u]) side (neg (call distance [x @0607])) true \"destination\")"
    );
    assert_eq!(ex("choose x in hexes by Swedish \"where\""), "(choose x hexes Swedish - false \"where\")");
    assert_eq!(ex("sum u in units(s): u.cs"), "(Sum u (call units [s]) - (. u cs))");
    assert_eq!(
        ex("max u in units(s) where u is Infantry : u.cs * 2"),
        "(Max u (call units [s]) (is u Infantry) (Mul (. u cs) 2))"
    );
    for (q, name) in
        [("count", "Count"), ("any", "Any"), ("all", "All"), ("min", "Min"), ("filter", "Filter")]
    {
        assert_eq!(ex(&format!("{q} u in us")), format!("({name} u us - -)"));
    }
    assert_eq!(ex("[]"), "[]");
    assert_eq!(ex("[1, a, @0101]"), "[1 a @0101]");
    assert_eq!(
        ex("i64max(9223372036854775807, -9223372036854775808)"),
        "(call i64max [9223372036854775807 -9223372036854775808])"
    );
}

#[test]
fn keywords_need_a_word_boundary() {
    // Names that start with a keyword or operator word are names.
    assert_eq!(ex("nothing(x)"), "(call nothing [x])");
    assert_eq!(ex("notable"), "notable");
    assert_eq!(ex("order_of(x) + android"), "(Add (call order_of [x]) android)");
    assert_eq!(ex("isolated(u) or hasty"), "(Or (call isolated [u]) hasty)");
    assert_eq!(
        ex("summary + counted + anyone + allies + minimum + maximum + filtered"),
        "(Add (Add (Add (Add (Add (Add summary counted) anyone) allies) minimum) maximum) filtered)"
    );
    assert_eq!(
        ex("iffy + thence + elsewhere + truest + rolled"),
        "(Add (Add (Add (Add iffy thence) elsewhere) truest) rolled)"
    );
    match stmt("mark u orange;") {
        StmtKind::Mark { target, marker } => {
            assert_eq!((sx(&target), marker.name.as_str()), ("u".into(), "orange"))
        }
        k => panic!("{k:?}"),
    }
    match stmt("unmark u island;") {
        StmtKind::Unmark { target, marker } => {
            assert_eq!((sx(&target), marker.name.as_str()), ("u".into(), "island"))
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn operator_precedence_and_associativity() {
    assert_eq!(ex("a or b and c"), "(Or a (And b c))");
    assert_eq!(ex("a and b or c"), "(Or (And a b) c)");
    assert_eq!(ex("a or b or c"), "(Or (Or a b) c)");
    assert_eq!(ex("not a and b"), "(And (not a) b)");
    assert_eq!(ex("not a == b"), "(not (Eq a b))");
    assert_eq!(ex("not not a"), "(not (not a))");
    assert_eq!(ex("a + b * c"), "(Add a (Mul b c))");
    assert_eq!(ex("a * b + c"), "(Add (Mul a b) c)");
    assert_eq!(ex("a - b - c"), "(Sub (Sub a b) c)");
    assert_eq!(ex("a / b / c % d"), "(Rem (Div (Div a b) c) d)");
    assert_eq!(ex("a + b < c * d"), "(Lt (Add a b) (Mul c d))");
    assert_eq!(ex("a < b and c >= d"), "(And (Lt a b) (Ge c d))");
    assert_eq!(ex("a != b"), "(Ne a b)");
    assert_eq!(ex("a > b"), "(Gt a b)");
    assert_eq!(ex("(a + b) * c"), "(Mul (Add a b) c)");
    assert_eq!(ex("-a.b"), "(neg (. a b))");
    assert_eq!(ex("-a * b"), "(Mul (neg a) b)");
    assert_eq!(ex("a - -b"), "(Sub a (neg b))");
    assert_eq!(ex("a.b[c].d is X"), "(is (. (idx (. a b) c) d) X)");
    assert_eq!(ex("if a then b else c + 1"), "(if a b (Add c 1))");
    assert_eq!(ex("r <= u.mr + (if d then -1 else 0)"), "(Le r (Add (. u mr) (if d -1 0)))");
    assert_eq!(ex("sum u in us: u.cs + 1"), "(Sum u us - (Add (. u cs) 1))");
    // Comparisons do not chain.
    let ds = parse_err("§1 fn f() -> Bool = a < b < c;");
    assert_eq!(ds[0].code, "E0001");
    assert!(ds[0].notes.iter().any(|n| n.contains("do not chain")), "{ds:?}");
}

#[test]
fn expression_spans() {
    let (text, e) = expr_of("a + b * (c - d)");
    assert_eq!(slice(&text, e.span), "a + b * (c - d)");
    let ExprKind::Binary(BinOp::Add, l, r) = &e.kind else { panic!() };
    assert_eq!(slice(&text, l.span), "a");
    assert_eq!(slice(&text, r.span), "b * (c - d)");
    let ExprKind::Binary(BinOp::Mul, _, paren) = &r.kind else { panic!() };
    assert_eq!(slice(&text, paren.span), "(c - d)");
    let (text, e) = expr_of("a - b - c");
    let ExprKind::Binary(_, inner, _) = &e.kind else { panic!() };
    assert_eq!(slice(&text, inner.span), "a - b");
    let (text, e) = expr_of("f(x).cs[1]");
    let ExprKind::Index(t, i, None) = &e.kind else { panic!() };
    assert_eq!(slice(&text, t.span), "f(x).cs");
    assert_eq!(slice(&text, i.span), "1");
    assert_eq!(slice(&text, e.span), "f(x).cs[1]");
    let (text, e) = expr_of("-7");
    assert_eq!(slice(&text, e.span), "-7");
    let (text, e) = expr_of("roll 2d6");
    let ExprKind::Roll(d) = &e.kind else { panic!() };
    assert_eq!(slice(&text, d.span), "2d6");
    let (text, e) = expr_of("@0412");
    assert_eq!(slice(&text, e.span), "@0412");
}

// ------------------------------------------------------------------ syntax errors (E0001)

#[test]
fn error_misspelt_declaration_keyword() {
    let d = syntax_error(
        "§2.1 unti X: a",
        1,
        6,
        "expected a declaration after the anchor (table, unit, procedure, ...)",
    );
    assert!(d.message.contains("found `unti`"));
    assert_eq!((d.span.start, d.span.end), (6, 10));
    assert!(d.notes.iter().any(|n| n.contains("did you mean `unit`")));
}

#[test]
fn error_missing_semicolon_in_block() {
    let text = "§9.2 procedure p() {\n  let x = 1\n}";
    syntax_error(text, 2, 12, "expected `;` at the end of this line, found `}` after it");
}

/// A `;` missing at the end of a line is reported at the gap (after `1`), with the
/// next line's token as a label; comments and blank lines between are skipped.
#[test]
fn error_missing_semicolon_at_the_gap() {
    let text = "§9.2 procedure p() {\n  let x = 1 // one\n\n  let y = 2;\n}";
    let d = syntax_error(text, 2, 12, "expected `;` at the end of this line, found `let` after it");
    assert_eq!(d.span.start, d.span.end, "a point at the gap");
    let (label, what) = &d.labels[0];
    assert_eq!(&text[label.start as usize..label.end as usize], "let");
    assert_eq!(what, "the next token");
    // On one line the error stays at the token.
    syntax_error("§9.2 procedure p() { let x = 1 let y = 2; }", 1, 32, "expected `;`");
}

/// The end of the file inside a block names the `{` that is never closed.
#[test]
fn error_unclosed_brace_is_named() {
    let text = "§9.2 procedure p() {\n  if true {\n    log \"{ not a brace\";\n  // }\n}\n";
    let d = syntax_error(text, 6, 1, "found end of file");
    let (label, what) =
        d.labels.iter().find(|(_, w)| w.contains("never closed")).expect("a label on the open brace");
    assert_eq!(label.start as usize, text.find('{').expect("brace"), "the procedure's `{{`: {what}");
    assert!(d.notes.iter().any(|n| n.contains("line 1")), "{:?}", d.notes);
}

#[test]
fn error_unknown_statement() {
    let text = "§9.2 procedure p() {\n  let x = 1;\n  mvoe u to @0101;\n}";
    let d = syntax_error(text, 3, 3, "expected a statement or `}`, found `mvoe`");
    assert!(d.notes.iter().any(|n| n.contains("did you mean `move`")));
}

#[test]
fn error_missing_expression() {
    syntax_error("§9.2 procedure p() { let x = ; }", 1, 30, "expected an expression, found `;`");
}

#[test]
fn error_stray_text_at_top_level() {
    let text = "rulebook \"x\" { }\nfoo";
    syntax_error(text, 2, 1, "a paragraph anchor like §7.1.2");
}

#[test]
fn error_unclosed_list_at_end_of_file() {
    syntax_error("§2.1 sides { A, B", 1, 18, "expected `,` or `}`, found end of file");
}

#[test]
fn error_table_row_without_colon() {
    let text = "§7.1.2 table CRT {\n  roll 1d6;\n  rows { 1 Ar; }\n}";
    syntax_error(text, 3, 12, "expected `-` or `:`, found `Ar`");
}

#[test]
fn error_table_without_rows() {
    syntax_error("§7.1.2 table CRT { roll 1d6; }", 1, 30, "`rows { ... }`");
}

#[test]
fn error_space_after_section_sign() {
    syntax_error("§ 7.1 sides { A }", 1, 2, "a paragraph number like 7.1.2");
}

#[test]
fn error_chained_comparison() {
    let d = syntax_error("§3 fn f() -> Bool = a < b < c;", 1, 27, "expected `;`, found `<`");
    assert!(d.notes[0].contains("do not chain"));
}

#[test]
fn error_unterminated_string() {
    let text = "§3 fn f() -> Int = 1;\n§2.1 rating cs: 0..40 \"combat strength\n";
    let d = syntax_error(text, 2, 23, "unterminated string");
    assert_eq!(d.span.end - d.span.start, 1);
}

#[test]
fn error_unclosed_parenthesis() {
    syntax_error("§3 fn f() -> Int = (1 + 2;", 1, 26, "expected `)`, found `;`");
}

#[test]
fn error_reserved_word_as_name() {
    let d = syntax_error(
        "§9 procedure p() {\n  let then = 3;\n}",
        2,
        7,
        "expected a name, found the reserved word `then`",
    );
    assert!(d.notes[0].contains("reserved word"));
}

#[test]
fn error_if_expression_without_else() {
    syntax_error("§3 fn f() -> Int = if a then b;", 1, 31, "expected `else`, found `;`");
}

#[test]
fn error_short_hex_reference() {
    syntax_error("§3 fn f() -> Hex = @12;", 1, 21, "a hex number like 0412 or an area name, found `12`");
}

#[test]
fn error_unit_without_colon() {
    syntax_error("§2.1 unit X a", 1, 13, "expected `:`, found `a`");
}

#[test]
fn error_missing_number_at_end_of_file() {
    syntax_error("§2.1 unit X: a steps", 1, 21, "expected a number, found end of file");
}

#[test]
fn error_empty_ruling() {
    syntax_error("§7.1 ruling r \"q\" { }", 1, 21, "expected `default` or a name, found `}`");
}

#[test]
fn error_unclosed_block_at_end_of_file() {
    syntax_error("§9.2 procedure p() {\n  return;\n", 3, 1, "expected a statement or `}`, found end of file");
}

#[test]
fn error_missing_field_name() {
    syntax_error("§3 fn f() -> Int = a.;", 1, 22, "expected a name, found `;`");
}

#[test]
fn error_modifier_without_when() {
    syntax_error("§7 modifiers m(a: A) {\n  +1 if x;\n}", 2, 6, "expected `when`, found `if`");
}

#[test]
fn error_parameter_without_colon() {
    syntax_error("§3 fn f(u Unit) -> Int = 1;", 1, 11, "expected `:`, found `Unit`");
}

#[test]
fn error_grid_without_x() {
    syntax_error("§2 map \"M\" { grid 40 41 even_down; }", 1, 22, "expected `x`, found `41`");
}

#[test]
fn error_column_is_counted_in_characters() {
    // `§` is two bytes; columns count characters.
    let d = syntax_error("§1 §2 §3 frob", 1, 10, "a declaration after the anchor");
    assert_eq!(d.span.start, 12);
}

// ------------------------------------------------------------------ lowering errors

#[test]
fn numbers_out_of_range_are_e0002() {
    let text = "§3 fn f() -> Int = 99999999999999999999;";
    let ds = parse_err(text);
    assert_eq!(ds[0].code, "E0002");
    assert_eq!(slice(text, ds[0].span), "99999999999999999999");
    assert_eq!(parse_err("§3 fn f() -> Int = -9223372036854775809;")[0].code, "E0002");
    assert_eq!(parse_err("§2 rating cs: 0..99999999999999999999")[0].code, "E0002");
    assert_eq!(parse_err("§2 table T { roll 99999999999d6; rows { 1: A; } }")[0].code, "E0002");
}

#[test]
fn bad_dice_and_ratios_are_e0003() {
    let text = "§3 fn f() -> Int = roll 3d0 + roll 0d6 + roll 101d6 + roll 100d6;";
    let ds = parse_err(text);
    let got: Vec<(&str, &str)> = ds.iter().map(|d| (d.code, slice(text, d.span))).collect();
    assert_eq!(got, [("E0003", "3d0"), ("E0003", "0d6"), ("E0003", "101d6")]);
    let text = "§3 terrain W { defense: 1/0 }";
    let ds = parse_err(text);
    assert_eq!((ds[0].code, slice(text, ds[0].span)), ("E0003", "0"));
    let text = "§3 modifiers m() { x1/0 when true; }";
    let ds = parse_err(text);
    assert_eq!((ds[0].code, slice(text, ds[0].span)), ("E0003", "x1/0"));
    assert!(ds[0].message.contains("denominator"));
    assert_eq!(parse_err("rulebook \"x\" { dice 0d6; }")[0].code, "E0003");
}

#[test]
fn all_lowering_errors_are_reported_together() {
    let ds = parse_err("§3 fn f() -> Int = 99999999999999999999 + roll 0d6;");
    let codes: Vec<&str> = ds.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0002", "E0003"]);
}

// ------------------------------------------------------------------ robustness

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for depth in [50usize, 150, 1_000, 20_000] {
        for (open, close) in [("(", ")"), ("[", "]"), ("-", ""), ("not ", "")] {
            let text = format!("§1 fn f() -> Int = {}1{};", open.repeat(depth), close.repeat(depth));
            match parse_file(0, &text) {
                Ok(b) => {
                    assert!(depth <= 200, "depth {depth} {open} accepted");
                    check_ast_spans(&b, text.len());
                }
                Err(ds) => {
                    assert!(depth > 50, "depth {depth} {open}: {ds:?}");
                    check_diag_spans(&ds, text.len());
                    assert_eq!(ds[0].code, "E0001");
                }
            }
        }
    }
    let text = format!("§1 procedure p() {{ {} }}", "if a { ".repeat(5_000) + &"} ".repeat(5_000));
    if let Err(ds) = parse_file(0, &text) {
        check_diag_spans(&ds, text.len());
    }
}

#[test]
fn non_ascii_and_odd_input_do_not_panic() {
    for text in [
        "",
        "§",
        "§§",
        "\"",
        "\"\\",
        "@",
        "§1 fn f() -> Int = \"é",
        "é",
        "\u{0}",
        "§1 sides { Ä }",
        "§1 fn f() -> Int = 1 <",
        "rulebook",
        "//",
        "§1.",
        "§Rule",
        "§[",
        "§Exclusive[1",
    ] {
        match parse_file(0, text) {
            Ok(b) => check_ast_spans(&b, text.len()),
            Err(ds) => check_diag_spans(&ds, text.len()),
        }
    }
}

fn check_any(text: &str) {
    match parse_file(7, text) {
        Ok(b) => check_ast_spans(&b, text.len()),
        Err(ds) => {
            check_diag_spans(&ds, text.len());
            assert!(ds.iter().all(|d| d.span.file == 7));
        }
    }
}

/// Mutations of the tour: delete, duplicate or replace a slice at a char boundary.
fn mutate(base: &str, at: usize, len: usize, kind: u8, with: &str) -> String {
    let chars: Vec<char> = base.chars().collect();
    let at = at % (chars.len() + 1);
    let end = (at + len).min(chars.len());
    let head: String = chars[..at].iter().collect();
    let mid: String = chars[at..end].iter().collect();
    let tail: String = chars[end..].iter().collect();
    match kind % 3 {
        0 => head + &tail,
        1 => head + &mid + &mid + &tail,
        _ => head + with + &tail,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_never_panic(text in "\\PC{0,200}") {
        check_any(&text);
    }

    #[test]
    fn token_soup_never_panics(
        toks in prop::collection::vec(prop::sample::select(vec![
            "§7.1", "§Rule 11", "§[4.]", "sides", "unit", "table", "rows", "fn", "procedure", "{", "}",
            "(", ")", "[", "]", ";", ":", ",", "..", "-", "+", "x", "1/2", "1d6", "@0412", "0412",
            "if", "then", "else", "let", "=", "==", "<", "and", "or", "not", "roll", "choose", "in",
            "by", "sum", "where", "\"s\"", "a", "B", "0", "99999999999999999999", "|", "->", "Int",
        ]), 0..40)
    ) {
        check_any(&toks.join(" "));
    }

    #[test]
    fn mutated_tour_never_panics(at in 0usize..6000, len in 0usize..12, kind in 0u8..3,
                                 with in "[ -~§]{0,4}") {
        check_any(&mutate(EXAMPLE, at, len, kind, &with));
    }
}

#[test]
fn cups_parse() {
    let text = "§5.0 cup Commands: Chit\n§5.0 procedure p() { put A1 in Commands; empty Commands; let c = draw from Commands; }";
    let book = parse_file(0, text).unwrap_or_else(|d| panic!("{d:?}"));
    assert!(matches!(&book.decls[0].kind, DeclKind::Cup { name, .. } if name.name == "Commands"));
    let DeclKind::Procedure { body, .. } = &book.decls[1].kind else { panic!() };
    assert!(
        matches!(&body.stmts[0].kind, StmtKind::Put { value, cup } if sx(value) == "A1" && cup.name == "Commands")
    );
    assert!(matches!(&body.stmts[1].kind, StmtKind::Empty(c) if c.name == "Commands"));
    assert!(matches!(&body.stmts[2].kind, StmtKind::Let { value, .. } if sx(value) == "(draw Commands)"));
}

#[test]
fn state_and_procedure_forms_of_issue_18() {
    // Tracks set in one statement, with zero, one or two keys.
    match stmt("set morale = 3;") {
        StmtKind::Set { name, value } => assert_eq!((name.name.as_str(), sx(&value)), ("morale", "3".into())),
        k => panic!("{k:?}"),
    }
    match stmt("set crossed[side, North] = 0;") {
        StmtKind::SetTrack { track, index, value } => {
            assert_eq!(track.name, "crossed");
            assert_eq!(index.iter().map(sx).collect::<Vec<_>>(), ["side", "North"]);
            assert_eq!(sx(&value), "0");
        }
        k => panic!("{k:?}"),
    }
    // Returns with and without a value; steps regained.
    assert!(matches!(stmt("return x + 1;"), StmtKind::Return(Some(e)) if sx(&e) == "(Add x 1)"));
    assert!(matches!(stmt("regain_step u;"), StmtKind::RegainStep(e) if sx(&e) == "u"));
    // Dice pools: `roll 2d6` stays a sum, `roll 2 d6` / `roll n d6` / `roll (n + 1) d6` are pools.
    assert_eq!(ex("roll 2d6"), "(roll 2d6)");
    assert_eq!(ex("roll 2 d6"), "(pool 2 d6)");
    assert_eq!(ex("roll n d10"), "(pool n d10)");
    assert_eq!(ex("roll (n + 1) d6"), "(pool (Add n 1) d6)");
    // A fn body with `let`s: nested Let expressions.
    let text = "§1 fn f(a: Int) -> Int { let b = a + 1; let c = b * 2; c - a }";
    match decl(text).kind {
        DeclKind::Fn { body, .. } => assert_eq!(sx(&body), "(let b (Add a 1) (let c (Mul b 2) (Sub c a)))"),
        k => panic!("{k:?}"),
    }
    // A procedure with a result; a track with two keys.
    match decl("§1 procedure p(s: Side) -> Int { return 1; }").kind {
        DeclKind::Procedure { ret: Some(TypeExpr::Named(t)), .. } => assert_eq!(t.name, "Int"),
        k => panic!("{k:?}"),
    }
    match decl("§1 track crossed per side per Border: 0..5").kind {
        DeclKind::Track {
            per_side: true,
            second: Some(TrackKey::Group(g)),
            values: TrackValues::Range(range),
            ..
        } => {
            assert_eq!((g.name.as_str(), range.hi), ("Border", 5))
        }
        k => panic!("{k:?}"),
    }
    // A track of references: the type in place of the range; `clear` empties it.
    match decl("§1 track target per unit: Unit").kind {
        DeclKind::Track { per_unit: true, values: TrackValues::Holds(t), .. } => assert_eq!(t.name, "Unit"),
        k => panic!("{k:?}"),
    }
    match decl("§1 procedure p(u: Unit) { clear target[u]; clear first; }").kind {
        DeclKind::Procedure { body, .. } => {
            assert!(
                matches!(&body.stmts[0].kind, StmtKind::ClearTrack { track, index } if track.name == "target" && index.len() == 1)
            );
            assert!(
                matches!(&body.stmts[1].kind, StmtKind::ClearTrack { track, index } if track.name == "first" && index.is_empty())
            );
        }
        k => panic!("{k:?}"),
    }
    match decl("§1 track hits per unit per side: 0..5").kind {
        DeclKind::Track { per_unit: true, second: Some(TrackKey::Side), .. } => {}
        k => panic!("{k:?}"),
    }
}

#[test]
fn secret_choices_reveals_and_revealing_markers() {
    // `revealed by M` after a hidden declaration's estimate; absent, none.
    match decl("§21 hidden type, initiative shown shown_type revealed by Identified;").kind {
        DeclKind::Hidden { tracks, shown, revealed_by: Some(m) } => {
            assert_eq!((tracks.len(), shown.name.as_str(), m.name.as_str()), (2, "shown_type", "Identified"))
        }
        k => panic!("{k:?}"),
    }
    assert!(matches!(decl("§21 hidden sp shown est;").kind, DeclKind::Hidden { revealed_by: None, .. }));
    // `secret` after the chooser; `reveal VALUE by SIDE "what";`.
    let src = r#"§19 procedure p() {
  let k = choose x in [1, 2] by Prussian secret prefer x "plan";
  reveal k by Prussian "plan";
}"#;
    match decl(src).kind {
        DeclKind::Procedure { body, .. } => {
            match &body.stmts[0].kind {
                StmtKind::Let { value, .. } => {
                    assert!(matches!(&value.kind, ExprKind::Choose { secret: true, prefer: Some(_), .. }))
                }
                k => panic!("{k:?}"),
            }
            assert!(matches!(&body.stmts[1].kind, StmtKind::Reveal { what, .. } if what == "plan"));
        }
        k => panic!("{k:?}"),
    }
    match decl(r#"§1 procedure q() { let k = choose x in [1, 2] by A "plan"; }"#).kind {
        DeclKind::Procedure { body, .. } => match &body.stmts[0].kind {
            StmtKind::Let { value, .. } => {
                assert!(matches!(&value.kind, ExprKind::Choose { secret: false, .. }))
            }
            k => panic!("{k:?}"),
        },
        k => panic!("{k:?}"),
    }
    // `secret` and `revealed` stay free as names elsewhere.
    assert!(matches!(decl("§1 track secret: 0..3").kind, DeclKind::Track { .. }));
}
