//! The diagnostics suite: one test per error case, each asserting the diagnostic's code,
//! the file, line and column of its primary span, and the rulebook paragraphs it names.
//!
//! Small cases are written inline: [`case`] compiles a `case.ks` file after `prelude.ks`
//! (a minimal valid header, contents and sides), so line and column numbers in the
//! assertions are those of the snippet as written. The issue's four "breaking the
//! encoding" cases mutate the real Peter the Great encoding, in memory and through the CLI.
//! Rendered diagnostics of a few cases are insta snapshots, `tests/snapshots/diagnostics__*.snap`
//! (review a change with `cargo insta review`; see tests/README.md).

use kriegsspiel_compiler::{compile, load, Compilation};
use kriegsspiel_dsl::{Diagnostic, Severity, SourceMap};
use std::path::{Path, PathBuf};
use std::process::Command;

// ------------------------------------------------------------------ harness

/// Header, contents and sides shared by the inline cases. `§9.0` is waived (for W0002).
const PRELUDE: &str = r#"rulebook "Diagnostics test" {
  numbering dotted lettered;
  dice d6;
}

contents {
  §1.0 "Sides"
  §2.0 "Units"
  §2.1 "Ratings"
  §3.0 "Tables"
  §4.0 "Rules"
  §4.1 "Modifiers"
  §5.0 "Map"
  §6.0 "Scenario"
  §9.0 "Background" waived "flavour only"
}

§1.0 sides { Blue, Red }
§4.0 sequence { }
"#;

/// A compiled case and the sources it was compiled from.
struct Case {
    sources: SourceMap,
    comp: Compilation,
}

/// Compile `src` as `case.ks`, after `prelude.ks`.
fn case(src: &str) -> Case {
    raw(&[("prelude.ks", PRELUDE), ("case.ks", src)])
}

/// Compile the given files, in order, with nothing prepended.
fn raw(files: &[(&str, &str)]) -> Case {
    let mut sources = SourceMap::new();
    for (name, text) in files {
        sources.add(*name, *text);
    }
    let comp = compile(&sources);
    Case { sources, comp }
}

/// `(file name, line, column)` of a diagnostic's primary span; the file is given by its
/// last path component so that cases loaded from disk do not depend on the checkout.
type Loc = (String, usize, usize);

impl Case {
    fn of(&self, sev: Severity) -> Vec<&Diagnostic> {
        self.comp.diagnostics.iter().filter(|d| d.severity == sev).collect()
    }

    fn loc(&self, d: &Diagnostic) -> Loc {
        let name = self.sources.name(d.span.file);
        let base = Path::new(name).file_name().map(|f| f.to_string_lossy().into_owned());
        let (line, col) = self.sources.line_col(d.span.file, d.span.start as usize);
        (base.unwrap_or_else(|| name.to_string()), line, col)
    }

    fn dump(&self) -> String {
        let mut s = String::new();
        for d in &self.comp.diagnostics {
            let (f, l, c) = self.loc(d);
            s.push_str(&format!(
                "  {} {} {f}:{l}:{c} {:?} {} {:?}\n",
                d.severity.as_str(),
                d.code,
                d.paragraphs,
                d.message,
                d.notes
            ));
        }
        s
    }

    /// The one error of this case (a case that cascades into several errors fails).
    fn only_error(&self) -> &Diagnostic {
        let errors = self.of(Severity::Error);
        assert_eq!(errors.len(), 1, "expected exactly one error, got:\n{}", self.dump());
        assert!(self.comp.has_errors());
        assert!(self.comp.program.is_none(), "a program was produced despite an error");
        errors[0]
    }

    /// The one warning of this case, which must have no errors.
    fn only_warning(&self) -> &Diagnostic {
        assert!(!self.comp.has_errors(), "expected no errors, got:\n{}", self.dump());
        let warnings = self.of(Severity::Warning);
        assert_eq!(warnings.len(), 1, "expected exactly one warning, got:\n{}", self.dump());
        warnings[0]
    }

    /// Assert `d`'s code, primary location and paragraphs.
    fn check(&self, d: &Diagnostic, code: &str, at: (&str, usize, usize), paragraphs: &[&str]) {
        let ctx = self.dump();
        assert_eq!(d.code, code, "wrong code; all diagnostics:\n{ctx}");
        let (f, l, c) = self.loc(d);
        assert_eq!((f.as_str(), l, c), at, "wrong location of {code}; all diagnostics:\n{ctx}");
        assert_eq!(d.paragraphs, paragraphs, "wrong paragraphs of {code}; all diagnostics:\n{ctx}");
    }

    /// The single error must be `code` at `at`, naming `paragraphs`.
    fn error(&self, code: &str, at: (&str, usize, usize), paragraphs: &[&str]) -> &Diagnostic {
        let d = self.only_error();
        self.check(d, code, at, paragraphs);
        d
    }

    /// The single warning must be `code` at `at`, naming `paragraphs`.
    fn warning(&self, code: &str, at: (&str, usize, usize), paragraphs: &[&str]) -> &Diagnostic {
        let d = self.only_warning();
        self.check(d, code, at, paragraphs);
        d
    }
}

fn has_note(d: &Diagnostic, note: &str) {
    assert!(d.notes.iter().any(|n| n == note), "note {note:?} missing from {:?}", d.notes);
}

fn has_label(d: &Diagnostic, c: &Case, text: &str, at: (&str, usize, usize)) {
    let found = d.labels.iter().any(|(sp, t)| {
        let probe = Diagnostic { span: *sp, ..d.clone() };
        let (f, l, col) = c.loc(&probe);
        t == text && (f.as_str(), l, col) == at
    });
    assert!(found, "label {text:?} at {at:?} missing from {:?}", d.labels);
}

// ------------------------------------------------------------------ E0001-E0003: syntax

#[test]
fn e0001_missing_semicolon_points_at_the_gap() {
    let c = case(
        r#"§2.1 rating cs: 0..9 "strength"
§4.0 fn f(u: Unit) -> Int = u.cs
§4.0 fn g(u: Unit) -> Int = 1;
"#,
    );
    // At the end of `u.cs`, where the `;` goes; the next line's `§` is a label.
    let d = c.error("E0001", ("case.ks", 2, 33), &[]);
    assert_eq!(d.message, "expected `;` at the end of this line, found `§` after it");
    assert!(d.labels.iter().any(|(_, l)| l == "the next token"), "{d:?}");
}

#[test]
fn e0001_unterminated_string_points_at_its_opening_quote() {
    let c = case("§2.1 rating cs: 0..9 \"strength\n");
    let d = c.error("E0001", ("case.ks", 1, 22), &[]);
    assert!(d.message.starts_with("unterminated string"), "{}", d.message);
}

#[test]
fn e0001_reserved_word_used_as_a_name() {
    let c = case("§2.0 classes { foot, then }\n");
    let d = c.error("E0001", ("case.ks", 1, 22), &[]);
    has_note(d, "`then` is a reserved word and cannot be used as a name");
}

#[test]
fn e0001_misspelt_keyword_suggests_the_keyword() {
    let c = case("§2.0 unti Infantry: foot\n");
    let d = c.error("E0001", ("case.ks", 1, 6), &[]);
    has_note(d, "help: did you mean `unit`?");
}

#[test]
fn e0001_anchor_without_declaration_at_end_of_file() {
    let c = case("§2.0 classes { foot }\n§2.1");
    let d = c.error("E0001", ("case.ks", 2, 5), &[]);
    assert!(d.message.ends_with("found end of file"), "{}", d.message);
}

#[test]
fn e0002_number_out_of_range() {
    let c = case("§2.1 rating cs: 0..99999999999999999999 \"strength\"\n");
    c.error("E0002", ("case.ks", 1, 20), &[]);
}

#[test]
fn e0003_a_roll_of_zero_dice() {
    let c = case("§3.0 table T { roll 0d6; rows { 1: 1; } }\n");
    c.error("E0003", ("case.ks", 1, 21), &[]);
}

#[test]
fn e0003_a_multiplier_with_zero_denominator() {
    let c = case(
        r#"§4.1 modifiers m(n: Int) {
  x1/0 when n > 0;
}
"#,
    );
    c.error("E0003", ("case.ks", 2, 3), &[]);
}

// ------------------------------------------------------------------ E01xx: names

#[test]
fn e0101_duplicate_rating_names_both_declarations() {
    let c = case(
        r#"§2.1 rating cs: 0..9 "strength"
§2.1 rating mr: 0..9 "morale"
§2.1 rating cs: 0..5 "again"
"#,
    );
    let d = c.error("E0101", ("case.ks", 3, 13), &["2.1"]);
    has_label(d, &c, "first declared here", ("case.ks", 1, 13));
}

#[test]
fn e0101_duplicate_counter() {
    let c = case(
        r#"§2.0 classes { foot }
§2.0 unit Infantry: foot steps 1
§6.0 counters {
  Blue "1st Foot" Infantry { }
  Red "1st Foot" Infantry { }
}
"#,
    );
    c.error("E0101", ("case.ks", 5, 7), &["6.0"]);
}

#[test]
fn e0102_unknown_type_in_a_signature() {
    let c = case("§4.0 fn f(n: Number) -> Int = 1;\n");
    let d = c.error("E0102", ("case.ks", 1, 14), &["4.0"]);
    assert_eq!(d.message, "unknown type `Number`");
}

#[test]
fn e0103_misspelt_unit_type_suggests_the_type() {
    let c = case(
        r#"§2.0 classes { foot }
§2.0 unit Infantry: foot steps 2
§2.1 rating cs: 0..9 "strength"
§6.0 counters {
  Blue "1st Foot" Infantry { cs: 4/2 }
  Red "2nd Foot" Infantery { cs: 4/2 }
}
"#,
    );
    let d = c.error("E0103", ("case.ks", 6, 18), &["6.0"]);
    has_note(d, "did you mean `Infantry`?");
}

#[test]
fn e0104_unknown_class_of_a_unit_type() {
    let c = case("§2.0 classes { foot }\n§2.0 unit Infantry: fot steps 2\n");
    let d = c.error("E0104", ("case.ks", 2, 21), &["2.0"]);
    has_note(d, "did you mean `foot`?");
}

#[test]
fn e0104_unknown_class_in_an_is_test() {
    let c = case(
        r#"§2.0 classes { foot, horse }
§4.0 fn mounted(u: Unit) -> Bool = u is hrose;
"#,
    );
    let d = c.error("E0104", ("case.ks", 2, 41), &["4.0"]);
    has_note(d, "did you mean `horse`?");
}

#[test]
fn e0105_unknown_side_of_a_counter() {
    let c = case(
        r#"§2.0 classes { foot }
§2.0 unit Infantry: foot steps 1
§6.0 counters {
  Green "1st Foot" Infantry { }
}
"#,
    );
    c.error("E0105", ("case.ks", 4, 3), &["6.0"]);
}

#[test]
fn e0105_unknown_side_in_a_scenario_order() {
    let c = case(r#"§6.0 scenario "1" "One" { order Blue, Green; }"#);
    c.error("E0105", ("case.ks", 1, 39), &["6.0"]);
}

#[test]
fn e0106_unknown_rating_on_a_counter() {
    let c = case(
        r#"§2.0 classes { foot }
§2.0 unit Infantry: foot steps 2
§2.1 rating cs: 0..9 "strength"
§6.0 counters {
  Blue "1st Foot" Infantry { cs: 4/2, mr: 3 }
}
"#,
    );
    c.error("E0106", ("case.ks", 5, 39), &["6.0"]);
}

#[test]
fn e0106_unknown_field_of_a_unit() {
    let c = case(
        r#"§2.1 rating cs: 0..9 "strength"
§4.0 fn strength(u: Unit) -> Int = u.sc;
"#,
    );
    let d = c.error("E0106", ("case.ks", 2, 38), &["4.0"]);
    has_note(d, "did you mean `cs`?");
}

#[test]
fn e0106_unknown_terrain_attribute() {
    let c = case(
        r#"§5.0 terrain Clear { cost: 1 }
§4.0 fn cost(h: Hex) -> Int = h.terrain.kost;
"#,
    );
    c.error("E0106", ("case.ks", 2, 41), &["4.0"]);
}

#[test]
fn e0107_unknown_marker() {
    let c = case(
        r#"§2.0 marker Routed on unit
§4.0 fn routed(u: Unit) -> Bool = u has Rooted;
"#,
    );
    let d = c.error("E0107", ("case.ks", 2, 41), &["4.0"]);
    has_note(d, "did you mean `Routed`?");
}

#[test]
fn e0108_unknown_table() {
    let c = case("§4.0 fn f(n: Int) -> Int = CRT[n];\n");
    c.error("E0108", ("case.ks", 1, 28), &["4.0"]);
}

#[test]
fn e0108_unknown_table_of_lookup_shifted() {
    let c = case(
        r#"§3.0 table Odds { roll 1d6; columns diff: ..0 | 1..; rows { 1-6: 1 2; } }
§4.0 procedure p(n: Int) { let r = lookup_shifted(Ods, n, 0, 3); }
"#,
    );
    let d = c.error("E0108", ("case.ks", 2, 51), &["4.0"]);
    has_note(d, "did you mean `Odds`?");
}

#[test]
fn e0109_unknown_procedure() {
    let c = case("§4.0 procedure p(s: Side) { call attack(s); }\n");
    c.error("E0109", ("case.ks", 1, 34), &["4.0"]);
}

#[test]
fn e0109_unknown_function_suggests_a_builtin() {
    let c = case("§4.0 fn f(a: Hex, b: Hex) -> Int = distanse(a, b);\n");
    let d = c.error("E0109", ("case.ks", 1, 36), &["4.0"]);
    has_note(d, "did you mean `distance`?");
}

#[test]
fn e0109_unknown_hook_function() {
    let c = case("§4.0 zone_of_control exerts;\n");
    c.error("E0109", ("case.ks", 1, 22), &["4.0"]);
}

#[test]
fn e0111_unknown_terrain_on_the_map() {
    let c = case(
        r#"§5.0 terrain Clear { cost: 1 }
§5.0 map "m" {
  grid 4 x 4 even_down;
  default Clear;
  terrain Wood { 0101 }
}
"#,
    );
    c.error("E0111", ("case.ks", 5, 11), &["5.0"]);
}

#[test]
fn e0111_unknown_hexside_feature() {
    let c = case(
        r#"§5.0 terrain Clear { cost: 1 }
§5.0 hexside River { cost: 1 }
§4.0 fn wet(a: Hex, b: Hex) -> Bool = crosses(a, b, Rvier);
"#,
    );
    let d = c.error("E0111", ("case.ks", 3, 53), &["4.0"]);
    has_note(d, "did you mean `River`?");
}

#[test]
fn e0112_unknown_region() {
    let c = case(
        r#"§5.0 terrain Clear { cost: 1 }
§5.0 map "m" { grid 4 x 4 even_down; default Clear; region Objectives { 0101 } }
§4.0 fn taken(h: Hex) -> Bool = in_region(h, Objective);
"#,
    );
    let d = c.error("E0112", ("case.ks", 3, 46), &["4.0"]);
    has_note(d, "did you mean `Objectives`?");
}

#[test]
fn e0113_unknown_track_in_adjust() {
    let c = case(
        r#"§4.0 track morale per side: 0..20
§4.0 procedure p(s: Side) { adjust moral[s] by 1; }
"#,
    );
    c.error("E0113", ("case.ks", 2, 36), &["4.0"]);
}

#[test]
fn e0113_unknown_track_in_a_scenario() {
    let c = case(r#"§6.0 scenario "1" "One" { order Blue, Red; start vp Blue 3; }"#);
    c.error("E0113", ("case.ks", 1, 50), &["6.0"]);
}

#[test]
fn e0114_unknown_scenario_flag() {
    let c = case("§4.0 fn dark(s: Side) -> Bool = flag(night);\n");
    c.error("E0114", ("case.ks", 1, 38), &["4.0"]);
}

#[test]
fn e0114_unknown_ruling() {
    let c = case(
        r#"§4.0 ruling picker "who picks the defending unit" {
  default attacker "the attacker";
  defender "the defender";
}
§4.0 fn f(s: Side) -> Bool = ruling(pickr, attacker);
"#,
    );
    let d = c.error("E0114", ("case.ks", 5, 37), &["4.0"]);
    has_note(d, "did you mean `picker`?");
}

// ------------------------------------------------------------------ E02xx: paragraphs

#[test]
fn e0201_anchor_to_a_paragraph_not_in_the_contents() {
    let c = case("§2.0 classes { foot }\n§7.2 classes { horse }\n");
    c.error("E0201", ("case.ks", 2, 1), &["7.2"]);
}

#[test]
fn e0201_statement_anchor_not_in_the_contents() {
    let c = case(
        r#"§4.0 procedure p(s: Side) {
  §4.7.C call p(s);
}
"#,
    );
    c.error("E0201", ("case.ks", 2, 3), &["4.7.C"]);
}

#[test]
fn e0201_modifier_line_anchor_is_reported_once() {
    // Regression: modifier lines' anchors were checked twice (declaration and body pass).
    let c = case("§4.1 modifiers m(n: Int) {\n  §4.7 +1 when n > 0;\n}\n");
    c.error("E0201", ("case.ks", 2, 3), &["4.7"]);
}

#[test]
fn e0202_duplicate_contents_entry() {
    let c = case("contents {\n  §3.0 \"Tables again\"\n}\n");
    let d = c.error("E0202", ("case.ks", 2, 3), &["3.0"]);
    has_label(d, &c, "first listed here", ("prelude.ks", 10, 3));
}

#[test]
fn e0203_no_rulebook_header() {
    let c = raw(&[("case.ks", "contents { §1.0 \"Sides\" }\n§1.0 sides { Blue, Red }\n")]);
    c.error("E0203", ("case.ks", 1, 1), &[]);
}

#[test]
fn e0203_second_rulebook_header() {
    let c = case("rulebook \"Again\" { dice d6; }\n");
    let d = c.error("E0203", ("case.ks", 1, 1), &[]);
    has_label(d, &c, "first header", ("prelude.ks", 1, 1));
}

#[test]
fn e0203_unknown_numbering_scheme() {
    let c = raw(&[(
        "case.ks",
        "rulebook \"R\" {\n  numbering roman lettered;\n}\ncontents { §1.0 \"Sides\" }\n§1.0 sides { Blue, Red }\n",
    )]);
    c.error("E0203", ("case.ks", 2, 13), &[]);
}

#[test]
fn e0204_anchor_outside_the_numbering_scheme() {
    let c = case("§Rule 4 classes { foot }\n");
    c.error("E0204", ("case.ks", 1, 1), &[]);
}

#[test]
fn e0204_contents_entry_with_a_lettered_item() {
    let c = case("contents {\n  §3.0.A \"Lettered\"\n}\n");
    c.error("E0204", ("case.ks", 2, 3), &[]);
}

// ------------------------------------------------------------------ E03xx: types

#[test]
fn e0301_type_mismatch_in_arithmetic() {
    let c = case(
        r#"§2.1 rating cs: 0..9 "strength"
§4.0 fn f(u: Unit) -> Int = u.cs + true;
"#,
    );
    let d = c.error("E0301", ("case.ks", 2, 36), &["4.0"]);
    assert_eq!(d.message, "arithmetic operand: expected Int, found Bool");
}

#[test]
fn e0301_non_bool_if_condition() {
    let c = case("§4.0 procedure p(s: Side) {\n  if 3 { }\n}\n");
    c.error("E0301", ("case.ks", 2, 6), &["4.0"]);
}

#[test]
fn e0301_terrain_attribute_not_int_or_bool() {
    let c = case("§5.0 terrain Clear { cost: 1/2 }\n");
    c.error("E0301", ("case.ks", 1, 28), &["5.0"]);
}

/// `if` branches of different types: each branch is labelled with its type.
#[test]
fn e0301_if_branches_of_different_types_are_labelled() {
    let c = case("§4.0 fn f(n: Int) -> Int = if n > 2 then n else true;\n");
    let d = c.error("E0301", ("case.ks", 1, 28), &["4.0"]);
    assert_eq!(d.message, "`if` branches differ: Int and Bool");
    has_label(d, &c, "`then` branch: Int", ("case.ks", 1, 42));
    has_label(d, &c, "`else` branch: Bool", ("case.ks", 1, 49));
}

/// A terrain compared with a number: the note names the terrain's Int attributes, in
/// an ordering (`>`) and in an equality (`==`) alike.
#[test]
fn e0301_terrain_compared_with_a_number_suggests_its_fields() {
    let c = case(
        r#"§5.0 terrain Clear { cost: 1, defense: 0, road: false }
§4.0 fn strong(h: Hex) -> Bool = h.terrain > 1;
§4.0 fn same(h: Hex) -> Bool = h.terrain == 2;
"#,
    );
    let errs = c.of(Severity::Error);
    assert_eq!(errs.len(), 2, "{}", c.dump());
    c.check(errs[0], "E0301", ("case.ks", 2, 34), &["4.0"]);
    assert_eq!(errs[0].message, "arithmetic operand: expected Int, found Terrain");
    c.check(errs[1], "E0301", ("case.ks", 3, 32), &["4.0"]);
    for d in errs {
        // `road` is a Bool attribute: not offered as a number.
        has_note(
            d,
            "help: a terrain is not a number; compare one of its Int fields instead, e.g. `.cost` (it has `.cost`, `.defense`)",
        );
    }
}

/// A unit used as a number: the note names its ratings.
#[test]
fn e0301_unit_used_as_a_number_suggests_its_ratings() {
    let c = case("§2.1 rating cs: 0..9 \"strength\"\n§4.0 fn f(u: Unit) -> Int = u * 2;\n");
    let d = c.error("E0301", ("case.ks", 2, 29), &["4.0"]);
    has_note(
        d,
        "help: a unit is not a number; compare one of its Int fields instead, e.g. `.cs` (it has `.cs`)",
    );
}

/// A modifier set called without its base value: the note says the base is implicit.
#[test]
fn e0302_modifier_set_called_without_its_base() {
    let c = case(
        r#"§4.1 modifiers drm(n: Int) { +1 when n > 2; }
§4.0 fn f(n: Int) -> Int = drm(n);
"#,
    );
    let d = c.error("E0302", ("case.ks", 2, 28), &["4.0"]);
    assert_eq!(d.message, "`drm` takes 2 argument(s), 1 given");
    has_note(
        d,
        "a modifier set takes its 1 declared parameter(s) and then the base value it modifies, \
         which its declaration leaves implicit: `drm(..., base)`",
    );
}

#[test]
fn e0302_arity_of_a_user_fn() {
    let c = case(
        r#"§4.0 fn add(a: Int, b: Int) -> Int = a + b;
§4.1 fn twice(n: Int) -> Int = add(n);
"#,
    );
    let d = c.error("E0302", ("case.ks", 2, 32), &["4.1"]);
    has_label(d, &c, "declared here", ("case.ks", 1, 9));
}

#[test]
fn e0302_arity_of_a_builtin() {
    let c = case("§4.0 fn d(h: Hex) -> Int = distance(h);\n");
    c.error("E0302", ("case.ks", 1, 28), &["4.0"]);
}

#[test]
fn e0302_table_with_columns_indexed_by_roll_only() {
    let c = case(
        r#"§3.0 table Odds { roll 1d6; columns diff: ..0 | 1..; rows { 1-6: 1 2; } }
§4.0 procedure p(s: Side) { let r = Odds[roll 1d6]; }
"#,
    );
    c.error("E0302", ("case.ks", 2, 37), &["4.0"]);
}

#[test]
fn e0303_non_bool_trigger_condition() {
    let c = case("§4.0 trigger collapse when 1 + 1 { draw \"exhausted\"; }\n");
    c.error("E0303", ("case.ks", 1, 28), &["4.0"]);
}

#[test]
fn e0304_roll_in_a_fn() {
    let c = case("§4.0 fn f(n: Int) -> Int = n + roll 1d6;\n");
    c.error("E0304", ("case.ks", 1, 32), &["4.0"]);
}

#[test]
fn e0304_effect_builtin_in_a_fn() {
    let c = case("§4.0 fn f(u: Unit) -> Bool = try_retreat(u, 1);\n");
    c.error("E0304", ("case.ks", 1, 30), &["4.0"]);
}

#[test]
fn e0304_effect_in_a_trigger_condition() {
    let c = case("§4.0 trigger t when roll 1d6 > 3 { draw \"luck\"; }\n");
    c.error("E0304", ("case.ks", 1, 21), &["4.0"]);
}

#[test]
fn e0305_return_type_differs_from_the_body() {
    let c = case("§4.0 fn f(n: Int) -> Bool = n + 1;\n");
    let d = c.error("E0305", ("case.ks", 1, 29), &["4.0"]);
    assert_eq!(d.message, "`f` returns Bool but its body is Int");
}

#[test]
fn e0306_unknown_name() {
    let c = case("§4.0 fn f(n: Int) -> Int = m + 1;\n");
    let d = c.error("E0306", ("case.ks", 1, 28), &["4.0"]);
    has_note(d, "did you mean `n`?");
}

#[test]
fn e0307_set_of_a_non_local() {
    let c = case(
        r#"§4.0 procedure p(s: Side) {
  let total = 0;
  §4.1 set totl = 1;
}
"#,
    );
    // The statement's own anchor is the paragraph named.
    c.error("E0307", ("case.ks", 3, 12), &["4.1"]);
}

// ------------------------------------------------------------------ E04xx: tables

#[test]
fn e0401_overlapping_rows() {
    let c = case("§3.0 table T { roll 1d6; rows { 1-3: 1; 3-6: 2; } }\n");
    c.error("E0401", ("case.ks", 1, 41), &["3.0"]);
}

#[test]
fn e0402_gap_between_rows() {
    let c = case(
        r#"§3.0 table T {
  roll 1d6;
  rows {
    1-2: 1;
    4-6: 2;
  }
}
"#,
    );
    let d = c.error("E0402", ("case.ks", 5, 5), &["3.0"]);
    assert_eq!(d.message, "rows of `T` leave a gap: no row for 3..3");
}

#[test]
fn e0402_rows_do_not_cover_the_dice() {
    let c = case("§3.0 table T { roll 2d6; rows { 2-6: 1; 7-11: 2; } }\n");
    let d = c.error("E0402", ("case.ks", 1, 12), &["3.0"]);
    assert_eq!(d.message, "rows of `T` cover 2..11 but 2d6 rolls 2..12: no result for some rolls");
}

#[test]
fn e0403_row_with_too_few_cells() {
    let c = case("§3.0 table T { roll 1d6; columns odds: ..0 | 1..; rows { 1-3: 1 2; 4-6: 3; } }\n");
    c.error("E0403", ("case.ks", 1, 68), &["3.0"]);
}

#[test]
fn e0404_columns_leave_a_gap() {
    let c = case("§3.0 table T { roll 1d6; columns odds: ..0 | 2..; rows { 1-6: 1 2; } }\n");
    let d = c.error("E0404", ("case.ks", 1, 46), &["3.0"]);
    assert_eq!(d.message, "columns of `T` leave a gap between 0 and 2");
}

#[test]
fn e0404_columns_overlap() {
    let c = case("§3.0 table T { roll 1d6; columns odds: ..3 | 2..; rows { 1-6: 1 2; } }\n");
    c.error("E0404", ("case.ks", 1, 46), &["3.0"]);
}

#[test]
fn e0405_cell_not_a_result_code() {
    let c = case(
        r#"§3.0 results Outcome { Hit, Miss }
§3.0 table T { roll 1d6; result Outcome; rows { 1-3: Hit; 4-6: Mis; } }
"#,
    );
    c.error("E0405", ("case.ks", 2, 64), &["3.0"]);
}

#[test]
fn e0407_table_without_rows() {
    let c = case("§3.0 table T { roll 1d6; rows { } }\n");
    c.error("E0407", ("case.ks", 1, 12), &["3.0"]);
}

/// The table (§3.0) has no `beyond rows clamp`; the modifier set (§4.1) adds up to +1 to a
/// 1d6 roll: the diagnostic names both, then the procedure doing the lookup (§4.0).
const OFF_TABLE: &str = r#"§2.1 rating mr: 0..5 "morale"
§3.0 table T { roll 1d6; rows { 1-3: 1; 4-6: 2; } }
§4.1 modifiers drm(u: Unit) {
  +1 when u.mr > 3;
}
§4.0 procedure p(u: Unit) {
  let r = T[roll 1d6 + drm(u, 0)];
}
"#;

#[test]
fn e0406_modifier_pushes_the_roll_off_the_table() {
    let c = case(OFF_TABLE);
    let d = c.error("E0406", ("case.ks", 7, 13), &["3.0", "4.1", "4.0"]);
    assert_eq!(d.message, "the roll can reach 1..7 but table `T` has rows 1..6 and no `beyond rows clamp`");
}

#[test]
fn e0406_is_silenced_by_beyond_rows_clamp() {
    let c = case(&OFF_TABLE.replace("roll 1d6; rows", "roll 1d6; beyond rows clamp; rows"));
    assert!(!c.comp.has_errors(), "{}", c.dump());
}

// ------------------------------------------------------------------ E05xx: data

#[test]
fn e0501_counter_rating_out_of_range() {
    let c = case(
        r#"§2.0 classes { foot }
§2.0 unit Infantry: foot steps 2
§2.1 rating cs: 0..9 "strength"
§6.0 counters {
  Blue "1st Foot" Infantry { cs: 12/6 }
}
"#,
    );
    let d = c.error("E0501", ("case.ks", 5, 30), &["6.0"]);
    assert_eq!(d.message, "cs = 12 is outside the rating's range 0..9");
}

#[test]
fn e0501_track_start_out_of_range() {
    let c = case(
        r#"§4.0 track vp: 0..20
§6.0 scenario "1" "One" { order Blue, Red; start vp Blue 25; }
"#,
    );
    c.error("E0501", ("case.ks", 2, 53), &["6.0"]);
}

#[test]
fn e0502_step_values_do_not_match_the_steps() {
    let c = case(
        r#"§2.0 classes { foot }
§2.0 unit Infantry: foot steps 2
§2.1 rating cs: 0..9 "strength"
§6.0 counters {
  Blue "1st Foot" Infantry { cs: 6/4/2 }
}
"#,
    );
    c.error("E0502", ("case.ks", 5, 30), &["6.0"]);
}

#[test]
fn e0503_map_hex_off_the_grid() {
    let c = case(
        r#"§5.0 terrain Clear { cost: 1 }
§5.0 map "m" {
  grid 4 x 4 even_down;
  default Clear;
  terrain Clear { 0101 0509 }
}
"#,
    );
    let d = c.error("E0503", ("case.ks", 5, 24), &["5.0"]);
    assert_eq!(d.message, "hex 0509 is not on the map (4 x 4)");
}

#[test]
fn e0503_hex_literal_in_code_off_the_grid() {
    let c = case(
        r#"§5.0 terrain Clear { cost: 1 }
§5.0 map "m" { grid 4 x 4 even_down; default Clear; }
§4.0 fn home(h: Hex) -> Bool = h == @0909;
"#,
    );
    c.error("E0503", ("case.ks", 3, 37), &["4.0"]);
}

#[test]
fn e0504_hexside_between_non_adjacent_hexes() {
    let c = case(
        r#"§5.0 terrain Clear { cost: 1 }
§5.0 hexside River { cost: 1 }
§5.0 map "m" {
  grid 4 x 4 even_down;
  default Clear;
  hexside River { 0101|0102 0101|0303 }
}
"#,
    );
    c.error("E0504", ("case.ks", 6, 29), &["5.0"]);
}

const SETUP: &str = r#"§2.0 classes { foot }
§2.0 unit Infantry: foot steps 1
§5.0 terrain Clear { cost: 1 }
§5.0 map "m" { grid 4 x 4 even_down; default Clear; }
§6.0 counters { Blue "1st Foot" Infantry { } }
"#;

#[test]
fn e0505_counter_placed_twice() {
    let c = case(&format!(
        "{SETUP}§6.0 scenario \"1\" \"One\" {{\n  order Blue, Red;\n  setup Blue {{ \"1st Foot\" at 0101; \"1st Foot\" at 0102; }}\n}}\n"
    ));
    let d = c.error("E0505", ("case.ks", 8, 36), &["6.0"]);
    has_label(d, &c, "first placed here", ("case.ks", 8, 16));
}

#[test]
fn e0505_placement_of_an_unknown_counter() {
    let c = case(&format!(
        "{SETUP}§6.0 scenario \"1\" \"One\" {{\n  order Blue, Red;\n  setup Blue {{ \"1st Fot\" at 0101; }}\n}}\n"
    ));
    let d = c.error("E0505", ("case.ks", 8, 16), &["6.0"]);
    has_note(d, "did you mean \"1st Foot\"?");
}

#[test]
fn e0505_example_places_an_unknown_counter() {
    let c = case(&format!("{SETUP}§6.0 example \"placing\" {{\n  place \"2nd Foot\" at 0101;\n}}\n"));
    c.error("E0505", ("case.ks", 7, 3), &["6.0"]);
}

#[test]
fn e0506_map_without_a_grid() {
    let c = case("§5.0 terrain Clear { cost: 1 }\n§5.0 map \"m\" { default Clear; }\n");
    c.error("E0506", ("case.ks", 2, 6), &["5.0"]);
}

#[test]
fn e0506_grid_of_zero_columns() {
    let c = case("§5.0 terrain Clear { cost: 1 }\n§5.0 map \"m\" { grid 0 x 4 even_down; default Clear; }\n");
    c.error("E0506", ("case.ks", 2, 16), &["5.0"]);
}

#[test]
fn e0506_unknown_map_edge() {
    let c = case(
        "§5.0 terrain Clear { cost: 1 }\n§5.0 map \"m\" { grid 4 x 4 even_down; default Clear; edge up exit; }\n",
    );
    c.error("E0506", ("case.ks", 2, 58), &["5.0"]);
}

// ------------------------------------------------------------------ E06xx: hooks, charts

#[test]
fn e0601_hook_with_the_wrong_signature() {
    let c = case(
        r#"§4.0 fn cost(u: Unit, h: Hex) -> Int = 1;
§4.1 movement { cost: cost; }
"#,
    );
    let d = c.error("E0601", ("case.ks", 2, 23), &["4.1"]);
    assert_eq!(d.message, "`cost` must be `fn(Unit, Hex, Hex) -> Int`");
    has_label(d, &c, "declared here", ("case.ks", 1, 9));
}

#[test]
fn e0601_unknown_hook() {
    let c = case(
        r#"§4.0 fn allow(u: Unit) -> Int = 1;
§4.0 movement { allowance: allow; speed: allow; }
"#,
    );
    c.error("E0601", ("case.ks", 2, 35), &["4.0"]);
}

#[test]
fn e0603_terrain_missing_an_attribute() {
    let c = case("§5.0 terrain Clear { cost: 1, defense: 1 }\n§5.0 terrain Woods { cost: 2 }\n");
    c.error("E0603", ("case.ks", 2, 14), &["5.0"]);
}

// ------------------------------------------------------------------ warnings

#[test]
fn w0001_unused_table() {
    let c = case("§3.0 table T { roll 1d6; rows { 1-6: 1; } }\n");
    let d = c.warning("W0001", ("case.ks", 1, 12), &["3.0"]);
    assert_eq!(d.message, "table `T` is never used");
}

#[test]
fn w0001_unused_fn() {
    let c = case("§4.0 fn helper(n: Int) -> Int = n + 1;\n");
    c.warning("W0001", ("case.ks", 1, 9), &["4.0"]);
}

#[test]
fn w0002_waived_paragraph_with_declarations() {
    let c = case("§9.0 classes { foot }\n");
    // Reported at the contents entry that waives §9.0.
    c.warning("W0002", ("prelude.ks", 15, 3), &["9.0"]);
}

#[test]
fn w0003_example_not_reproduced_names_its_paragraph() {
    let c = case(&format!(
        "{SETUP}§6.0 scenario \"1\" \"One\" {{ order Blue, Red; }}\n§6.0 example \"arithmetic\" {{\n  scenario \"1\";\n  expect 2 + 2 == 5;\n}}\n"
    ));
    let d = c.warning("W0003", ("case.ks", 7, 1), &["6.0"]);
    has_label(d, &c, "this expectation does not hold", ("case.ks", 9, 10));
}

/// W0003 on a comparison: the two sides are labelled with their values after the run
/// (the actual beside the expected), and the trace lists what the rules did, each event
/// with its paragraph: here the forced roll and the track change it caused.
#[test]
fn w0003_shows_the_actual_value_and_a_trace() {
    let c = case(&format!(
        "{SETUP}§6.0 scenario \"1\" \"One\" {{ order Blue, Red; }}
§4.0 track hits: 0..9
§4.1 procedure fire() {{ let d = roll 1d6; if d >= 5 {{ adjust hits by 2; }} else {{ adjust hits by 1; }} }}
§6.0 example \"a five hits twice\" {{
  scenario \"1\";
  dice 4;
  run fire();
  expect hits == 2;
  expect hits >= 1;
}}
"
    ));
    let d = c.warning("W0003", ("case.ks", 9, 1), &["6.0", "4.1"]);
    has_label(d, &c, "this expectation does not hold", ("case.ks", 13, 10));
    has_label(d, &c, "this is 1", ("case.ks", 13, 10));
    has_label(d, &c, "this is 2", ("case.ks", 13, 18));
    has_note(d, "expected 2, found 1");
    // The expectation that holds is not labelled.
    assert!(!d.labels.iter().any(|(sp, _)| c.loc(&Diagnostic { span: *sp, ..d.clone() }).1 == 14), "{d:?}");
    let trace = d.notes.iter().find(|n| n.starts_with("trace of the run")).expect("a trace note");
    let lines: Vec<&str> = trace.lines().skip(1).map(str::trim).collect();
    assert!(
        lines.iter().any(|l| l.starts_with("roll ") && l.contains("4") && l.ends_with("(§4.1)")),
        "{trace}"
    );
    assert!(lines.iter().any(|l| l.contains("hits") && l.ends_with("(§4.1)")), "{trace}");
}

/// A failing comparison's note reads its operator.
#[test]
fn w0003_an_ordering_names_its_operator() {
    let c = case(&format!(
        "{SETUP}§6.0 scenario \"1\" \"One\" {{ order Blue, Red; }}\n§6.0 example \"sums\" {{\n  scenario \"1\";\n  expect 2 + 2 > 5;\n}}\n"
    ));
    let d = c.warning("W0003", ("case.ks", 7, 1), &["6.0"]);
    has_note(d, "expected a value > 5, found 4");
    has_note(d, "trace of the run: the rules logged no event");
}

/// W0005: an example that holds under one alternative of a ruling and not under another
/// names the example's paragraph and the ruling's.
#[test]
fn w0005_example_depends_on_a_ruling() {
    let c = case(&format!(
        "{SETUP}§6.0 scenario \"1\" \"One\" {{ order Blue, Red; }}\n§4.1 ruling bonus \"+1 or +2?\" {{ default one \"+1\"; two \"+2\"; }}\n§4.0 fn plus(x: Int) -> Int = if ruling(bonus, one) then x + 1 else x + 2;\n§6.0 example \"three\" {{\n  scenario \"1\";\n  expect plus(2) == 3;\n}}\n"
    ));
    let d = c.warning("W0005", ("case.ks", 9, 1), &["6.0", "4.1"]);
    assert!(d.message.contains("reproduced under `one`, not under `two`"), "{}", d.message);
    assert!(c.of(Severity::Warning).iter().all(|d| d.code != "W0003"), "{}", c.dump());
}

/// E0601: an interrupt must take (Unit, Hex, Hex).
#[test]
fn e0601_interrupt_with_the_wrong_parameters() {
    let c = case("§4.0 interrupt watch(mover: Unit, dest: Hex) when true { }\n");
    c.error("E0601", ("case.ks", 1, 16), &["4.0"]);
}

/// `allow CODE "reason";` in the header leaves that code's warnings out and counts them
/// in the report with the reason; other warnings stay.
#[test]
fn allow_in_the_header_leaves_a_warning_out_and_counts_it() {
    let head =
        "rulebook \"A\" {\n  numbering dotted;\n  allow W0001 \"helpers kept for the next scenario\";\n}\n";
    let body = "contents { §1.0 \"Rules\" §9.0 \"Notes\" waived \"commentary\" }\n§1.0 sides { A, B }\n\
                §1.0 sequence { }\n§1.0 fn spare() -> Int = 1;\n§1.0 fn other() -> Int = 2;\n§9.0 classes { foot }\n";
    let c = raw(&[("case.ks", &format!("{head}{body}"))]);
    // W0002 (the waived §9.0 is anchored) is not allowed and stays; both W0001 go.
    c.warning("W0002", ("case.ks", 5, 25), &["9.0"]);
    assert_eq!(
        c.comp.report.allowed,
        vec![kriegsspiel_compiler::Allowed {
            code: "W0001".into(),
            reason: "helpers kept for the next scenario".into(),
            count: 2
        }]
    );
    assert!(c
        .comp
        .report
        .render()
        .contains("  allowed warnings: 2\n    W0001 ×2: helpers kept for the next scenario\n"));
    // Without the allow, the two W0001 are reported.
    let plain = raw(&[("case.ks", &format!("rulebook \"A\" {{ numbering dotted; }}\n{body}"))]);
    assert_eq!(
        plain.of(Severity::Warning).iter().filter(|d| d.code == "W0001").count(),
        2,
        "{}",
        plain.dump()
    );
}

/// E0250: an `allow` of an error, of an unknown code, of W0006 or without a reason.
#[test]
fn e0250_allow_of_what_cannot_be_allowed() {
    for (code, reason, message) in [
        ("E0301", "x", "`E0301` is an error: only warnings can be allowed"),
        ("W0099", "x", "`W0099` is not a warning code"),
        ("W0006", "x", "W0006 (a file skipped) concerns the files read, not the rulebook"),
        ("W0001", " ", "an `allow` needs its reason, in words"),
    ] {
        let src = format!(
            "rulebook \"A\" {{ numbering dotted; allow {code} \"{reason}\"; }}\ncontents {{ §1.0 \"Rules\" }}\n§1.0 sides {{ A, B }}\n§1.0 sequence {{ }}\n"
        );
        let c = raw(&[("case.ks", &src)]);
        let d = c.error("E0250", ("case.ks", 1, 40), &[]);
        assert_eq!(d.message, message);
        has_note(d, "warnings that can be allowed: W0001, W0002, W0003, W0004, W0005, W0007, W0008");
        assert!(c.comp.program.is_none());
    }
}

#[test]
fn w0004_rulebook_without_a_sequence() {
    let c = raw(&[(
        "case.ks",
        "rulebook \"R\" { dice d6; }\ncontents { §1.0 \"Sides\" }\n§1.0 sides { Blue, Red }\n",
    )]);
    c.warning("W0004", ("case.ks", 1, 1), &[]);
}

#[test]
fn the_prelude_alone_is_clean() {
    let c = case("");
    assert!(c.comp.diagnostics.is_empty(), "{}", c.dump());
    assert!(c.comp.program.is_some());
}

// ------------------------------------------------------------------ the real encoding

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The files of Peter the Great as loaded, named `peter-the-great/<file>.ks`.
fn peter_files() -> Vec<(String, String)> {
    let loaded = load(&repo().join("rulebooks/peter-the-great")).expect("load Peter the Great");
    loaded
        .ids()
        .map(|id| {
            let base = Path::new(loaded.name(id)).file_name().unwrap().to_string_lossy().into_owned();
            (format!("peter-the-great/{base}"), loaded.text(id).to_string())
        })
        .collect()
}

/// Peter the Great with `file`'s text passed through `edit`, and the edited text.
fn peter_with(file: &str, edit: impl FnOnce(&str) -> String) -> (Vec<(String, String)>, String) {
    let mut files = peter_files();
    let f = files.iter_mut().find(|f| f.0.ends_with(&format!("/{file}"))).expect("file of Peter");
    let new = edit(&f.1);
    assert_ne!(new, f.1, "the edit of {file} changed nothing");
    f.1 = new.clone();
    (files, new)
}

fn compile_files(files: &[(String, String)]) -> Case {
    let named: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    raw(&named)
}

/// 1-based line and column of `needle`'s `nth` occurrence in `text`, after `after`.
fn where_is(text: &str, after: &str, needle: &str) -> (usize, usize) {
    let from = text.find(after).expect("anchor text") + after.len();
    let at = from + text[from..].find(needle).expect("needle");
    let mut sm = SourceMap::new();
    let id = sm.add("x", text);
    sm.line_col(id, at)
}

/// Run `kriegsspiel check` on `files` written to a fresh temporary directory.
fn cli_check(tag: &str, files: &[(String, String)]) -> (i32, String) {
    let dir = std::env::temp_dir().join(format!("kriegsspiel-diagnostics-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        let base = Path::new(name).file_name().unwrap();
        std::fs::write(dir.join(base), text).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kriegsspiel")).arg("check").arg(&dir).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The mutated encoding has errors, and `check` exits 1 naming the code and paragraph.
fn assert_cli_rejects(tag: &str, files: &[(String, String)], code: &str, para: &str) {
    let (status, stderr) = cli_check(tag, files);
    assert_eq!(status, 1, "exit status of check; stderr:\n{stderr}");
    assert!(stderr.contains(&format!("error[{code}]")), "{code} missing from stderr:\n{stderr}");
    assert!(stderr.contains(&format!("§{para}")), "§{para} missing from stderr:\n{stderr}");
}

const CRT_ROW_4: &str = "    4: Br NE Dr D1 Ex DR DR EX;\n";

#[test]
fn peter_unmodified_compiles_cleanly() {
    let c = compile_files(&peter_files());
    assert!(c.comp.diagnostics.is_empty(), "Peter the Great is not clean:\n{}", c.dump());
    assert!(c.comp.program.is_some());
    let (status, stderr) = cli_check("clean", &peter_files());
    assert_eq!(status, 0, "stderr:\n{stderr}");
    assert!(stderr.is_empty(), "stderr:\n{stderr}");
}

#[test]
fn peter_deleting_a_crt_row_leaves_a_gap() {
    let (files, text) = peter_with("tables.ks", |t| {
        let crt = t.find("table CRT").unwrap();
        let row = crt + t[crt..].find(CRT_ROW_4).unwrap();
        format!("{}{}", &t[..row], &t[row + CRT_ROW_4.len()..])
    });
    let c = compile_files(&files);
    let (line, col) = where_is(&text, "table CRT", "5: NE");
    let d = c.error("E0402", ("tables.ks", line, col), &["7.1.2"]);
    assert_eq!(d.message, "rows of `CRT` leave a gap: no row for 4..4");
    assert_cli_rejects("crt-row", &files, "E0402", "7.1.2");
}

#[test]
fn peter_misspelt_unit_type_of_a_counter() {
    let (files, text) =
        peter_with("counters.ks", |t| t.replacen("RegularInfantry {", "RegularInfantyr {", 1));
    let c = compile_files(&files);
    let (line, col) = where_is(&text, "", "RegularInfantyr");
    let d = c.error("E0103", ("counters.ks", line, col), &["2.1"]);
    has_note(d, "did you mean `RegularInfantry`?");
    assert_cli_rejects("unit-type", &files, "E0103", "2.1");
}

#[test]
fn peter_anchor_to_a_paragraph_that_does_not_exist() {
    let (files, text) = peter_with("combat.ks", |t| {
        t.replace("§7.3.2 modifiers column_shift", "§7.3.9 modifiers column_shift")
    });
    let c = compile_files(&files);
    let (line, col) = where_is(&text, "", "§7.3.9");
    c.error("E0201", ("combat.ks", line, col), &["7.3.9"]);
    assert_cli_rejects("anchor", &files, "E0201", "7.3.9");
}

#[test]
fn peter_crt_without_clamp_is_pushed_off_by_the_mr_differential() {
    let (files, text) = peter_with("tables.ks", |t| {
        let crt = t.find("table CRT").unwrap();
        let clamp = crt + t[crt..].find("  beyond rows clamp;\n").unwrap();
        format!("{}{}", &t[..clamp], &t[clamp + "  beyond rows clamp;\n".len()..])
    });
    assert!(text.contains("beyond rows clamp"), "only the CRT's clamp is removed");
    let c = compile_files(&files);
    let combat = &files.iter().find(|f| f.0.ends_with("/combat.ks")).unwrap().1;
    let (line, col) = where_is(combat, "lookup_shifted(CRT,", "r + drm");
    let d = c.error("E0406", ("combat.ks", line, col), &["7.1.2", "10.3.B"]);
    assert!(d.message.contains("table `CRT` has rows 1..6"), "{}", d.message);
    assert_cli_rejects("clamp", &files, "E0406", "7.1.2");
}

// ------------------------------------------------------------------ golden renderings

/// Compare every rendered diagnostic of `c` with the insta snapshot
/// `tests/snapshots/diagnostics__NAME.snap` (review a change with `cargo insta review`,
/// or accept it with `INSTA_UPDATE=always`).
fn golden(name: &str, c: &Case) {
    let mut actual = String::new();
    for d in &c.comp.diagnostics {
        actual.push_str(&d.render(&c.sources));
    }
    insta::assert_snapshot!(name, actual);
}

#[test]
fn golden_syntax_error_with_keyword_help() {
    golden("e0001-misspelt-keyword", &case("§2.0 classes { foot }\n§2.0 unti Infantry: foot\n"));
}

#[test]
fn golden_duplicate_with_secondary_label() {
    golden("e0101-duplicate", &case("§2.1 rating cs: 0..9 \"strength\"\n§2.1 rating cs: 0..5 \"again\"\n"));
}

#[test]
fn golden_unknown_unit_type_with_suggestion() {
    golden(
        "e0103-unit-type",
        &case(
            r#"§2.0 classes { foot }
§2.0 unit Infantry: foot steps 2
§2.1 rating cs: 0..9 "strength"
§6.0 counters {
  Blue "1st Foot" Infantry { cs: 4/2 }
  Red "2nd Foot" Infantery { cs: 4/2 }
}
"#,
        ),
    );
}

#[test]
fn golden_gap_between_rows() {
    golden(
        "e0402-gap",
        &case(
            r#"§3.0 results Outcome { Hit, Miss }
§3.0 table T {
  roll 1d6;
  result Outcome;
  rows {
    1-2: Hit;
    4-6: Miss;
  }
}
"#,
        ),
    );
}

#[test]
fn golden_duplicate_contents_entry_across_files() {
    // Primary label in case.ks, secondary in prelude.ks.
    golden("e0202-two-files", &case("contents {\n  §3.0 \"Tables again\"\n}\n"));
}

#[test]
fn golden_off_table_modifier() {
    golden("e0406-off-table", &case(OFF_TABLE));
}

#[test]
fn golden_warnings() {
    golden(
        "w0001-w0002-warnings",
        &case("§9.0 classes { foot }\n§3.0 table T { roll 1d6; rows { 1-6: 1; } }\n"),
    );
}
