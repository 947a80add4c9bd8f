//! `kriegsspiel odds RULEBOOK TABLE [--drm N]` (issue 15): exact fractions checked against
//! cases computed by hand (Peter the Great's supplied CRT, one die, with and without a
//! modifier and its clamp; Frederick the Great's 2d6 tables) and against a sampled
//! estimate that reads the compiled table the way a game does (`TableDef::row_of`).

use kriegsspiel_compiler::{compile, load_files};
use kriegsspiel_runtime::Value;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kriegsspiel")).args(args).output().expect("runs")
}

fn book(name: &str) -> String {
    root().join("rulebooks").join(name).to_string_lossy().into_owned()
}

fn odds(rulebook: &str, table: &str, drm: i64) -> Json {
    let d = format!("--drm={drm}");
    let o = run(&["odds", rulebook, table, &d, "--format", "json", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("json")
}

/// Column `col`'s results as (result, fraction), in the order they appear.
fn column(o: &Json, col: &str) -> Vec<(String, String)> {
    let c = o["columns"].as_array().unwrap().iter().find(|c| c["column"] == col).expect("column");
    c["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["result"].as_str().unwrap().to_string(), r["fraction"].as_str().unwrap().to_string()))
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Peter's CRT, column 0..1, reads Br NE Dr D1 Ex EX on rolls 1-6 (tables.ks) and clamps
/// rows beyond the table. Without a modifier each result is 1/6; with +2 the rolls read
/// rows 3..8, rows 7 and 8 clamped to 6 (EX three times); with -3 rows -2..3, rows -2..0
/// clamped to 1 (Br four times).
#[test]
fn peter_crt_by_hand() {
    let p = book("peter-the-great");
    let o = odds(&p, "CRT", 0);
    assert_eq!(o["dice"], "1d6");
    assert_eq!(o["outcomes"], 6);
    assert_eq!(
        column(&o, "0..1"),
        pairs(&[("Br", "1/6"), ("NE", "1/6"), ("Dr", "1/6"), ("D1", "1/6"), ("Ex", "1/6"), ("EX", "1/6")])
    );
    let o = odds(&p, "CRT", 2);
    assert_eq!(column(&o, "0..1"), pairs(&[("Dr", "1/6"), ("D1", "1/6"), ("Ex", "1/6"), ("EX", "1/2")]));
    let o = odds(&p, "CRT", -3);
    assert_eq!(column(&o, "0..1"), pairs(&[("Br", "2/3"), ("NE", "1/6"), ("Dr", "1/6")]));
    // Column ..-5 (the first): Ar Ar Ar Br NE Dr.
    let o = odds(&p, "CRT", 0);
    assert_eq!(column(&o, "..-5"), pairs(&[("Ar", "1/2"), ("Br", "1/6"), ("NE", "1/6"), ("Dr", "1/6")]));
}

/// Frederick's 2d6 tables: ForcedMarchAttrition 2-8: 0, 9-10: 5, 11-12: 10 gives 26/36,
/// 7/36, 3/36; LeaderLoss 2-3 and 12 Killed (4/36), 4-11 Unharmed (32/36). A modifier
/// past rows that do not clamp is a roll off the table (R0007 in a game): +2 puts 11
/// and 12 off it.
#[test]
fn frederick_two_dice_by_hand() {
    let f = book("frederick-the-great");
    let o = odds(&f, "ForcedMarchAttrition", 0);
    assert_eq!(o["outcomes"], 36);
    assert_eq!(column(&o, "all"), pairs(&[("0", "13/18"), ("5", "7/36"), ("10", "1/12")]));
    let o = odds(&f, "LeaderLoss", 0);
    assert_eq!(column(&o, "all"), pairs(&[("Killed", "1/9"), ("Unharmed", "8/9")]));
    let o = odds(&f, "ForcedMarchAttrition", 2);
    assert_eq!(o["beyond_rows"], "error");
    assert_eq!(
        column(&o, "all"),
        pairs(&[("0", "5/12"), ("5", "11/36"), ("10", "7/36"), ("off the table (R0007)", "1/12")])
    );
}

/// A sampled estimate: 60,000 rolls of the table's dice from a fixed-seed generator,
/// read through the compiled table as a game reads it, agree with the exact fractions
/// within 0.01 in every column.
#[test]
fn exact_odds_agree_with_a_sampled_estimate() {
    let (sources, _) = load_files(&root().join("rulebooks/frederick-the-great")).unwrap();
    let prog = compile(&sources).program.expect("compiles");
    let table = prog.tables.iter().find(|t| t.name == "SupplyDepletion").expect("table");
    let o = odds(&book("frederick-the-great"), "SupplyDepletion", 1);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut die = || {
        // xorshift64*: good enough for an estimate, and fixed.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % 6 + 1
    };
    let n = 60_000;
    let ncols = table.columns.len();
    let mut seen: Vec<BTreeMap<String, u64>> = vec![BTreeMap::new(); ncols];
    for _ in 0..n {
        let roll = die() as i64 + 1;
        for (c, counts) in seen.iter_mut().enumerate() {
            let label = match table.row_of(roll) {
                Some(r) => match table.cells[r * ncols + c] {
                    Value::Int(i) => i.to_string(),
                    other => panic!("{other:?}"),
                },
                None => "off the table (R0007)".into(),
            };
            *counts.entry(label).or_default() += 1;
        }
    }
    let cols = o["columns"].as_array().unwrap();
    assert_eq!(cols.len(), ncols);
    for (c, col) in cols.iter().enumerate() {
        let exact: BTreeMap<String, f64> = col["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["result"].as_str().unwrap().to_string(), r["probability"].as_f64().unwrap()))
            .collect();
        let keys: Vec<&String> = exact.keys().collect();
        assert_eq!(keys, seen[c].keys().collect::<Vec<_>>(), "column {c}: the same results");
        for (k, p) in &exact {
            let est = seen[c][k] as f64 / n as f64;
            assert!((est - p).abs() < 0.01, "column {c} {k}: exact {p}, sampled {est}");
        }
    }
}

#[test]
fn tables_that_cannot_be_enumerated_are_refused() {
    let p = book("peter-the-great");
    let o = run(&["odds", &p, "NoSuchTable", "--quiet"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("error[E0703]") && err.contains("CRT"), "lists the tables: {err}");
    // Text output: one block per column with fractions and percentages.
    let o = run(&["odds", &p, "CRT", "--drm", "-1", "--quiet"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("CRT (§7.1.2): 1d6, 6 equally likely outcomes, modifier -1"), "{text}");
    assert!(text.contains("  column 0..1\n"), "{text}");
}

/// A skirmish of our own: a first die, and on 5-6 a second; 2d6 for a volley.
const SKIRMISH: &str = r#"rulebook "Skirmish" { numbering dotted; dice d6; }
contents { §1.0 "Pieces" §2.0 "Fire" §3.0 "Examples" }
§1.0 sides { Red, Blue }
§1.0 classes { foot }
§1.0 unit Foot: foot steps 2
§1.0 terrain Clear { cost: 1 }
§1.0 marker Pinned on unit
§2.0 procedure fire(u: Unit) {
  if roll 1d6 >= 5 {
    if roll 1d6 >= 4 { lose_step u; } else { mark u Pinned; }
  }
}
§2.0 procedure volley(u: Unit) {
  if roll 2d6 >= 10 { lose_step u; }
}
§1.0 sequence { draw "nothing happens"; }
§1.0 map "Field" supplied "a test" { grid 2 x 2 even_down; default Clear; }
§1.0 counters supplied "a test" { Blue "Target" Foot { } }
§1.0 scenario "1" "Skirmish" { order Red, Blue; setup Blue { "Target" at 0101; } }
§3.0 example "aimed fire" {
  scenario "1";
  place "Target" at 0101;
  dice 6 6;
  run fire(unit("Target"));
  expect unit("Target").steps == 1;
}
§3.0 example "a volley" {
  scenario "1";
  place "Target" at 0101;
  run volley(unit("Target"));
}
"#;

fn skirmish() -> String {
    let dir = root().join("target/tmp/odds-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("skirmish.ks");
    std::fs::write(&p, SKIRMISH).unwrap();
    p.to_string_lossy().into_owned()
}

fn example_odds(rulebook: &str, title: &str) -> Json {
    let o = run(&["odds", rulebook, "--example", title, "--format", "json", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("json")
}

/// Fractions `a/b` summed exactly.
fn sum_fractions<'a>(fs: impl Iterator<Item = &'a str>) -> (u128, u128) {
    fn gcd(a: u128, b: u128) -> u128 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    fs.fold((0, 1), |(n, d), f| {
        let (a, b): (u128, u128) = match f.split_once('/') {
            Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
            None => (f.parse().unwrap(), 1),
        };
        let (n, d) = (n * b + a * d, d * b);
        let g = gcd(n, d);
        (n / g, d / g)
    })
}

/// `odds --example`: the example's procedure is run for every way its dice fall (the
/// example's own dice are ignored), depth first: a second die only where the first
/// allows one (4 + 2 x 6 = 16 runs), a 2d6 total counted by its ways (10-12: 6 of 36).
/// By hand: no effect 4/6, pinned 2/6 x 3/6 = 1/6, a step lost 1/6; the expectation
/// (a step lost) holds with 1/6.
#[test]
fn an_examples_outcomes_are_enumerated_exactly() {
    let rb = skirmish();
    let o = example_odds(&rb, "aimed fire");
    assert_eq!(o["runs"], 16);
    assert_eq!(o["most_rolls"], 2);
    let got: BTreeMap<String, String> = o["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let effects: Vec<&str> =
                c["effects"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
            (effects.join(" / "), c["fraction"].as_str().unwrap().to_string())
        })
        .collect();
    let want: BTreeMap<String, String> =
        [("", "2/3"), ("marked Pinned: Target (§2.0)", "1/6"), ("Target loses a step, 1 left (§2.0)", "1/6")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
    assert_eq!(got, want);
    assert_eq!(o["expectations_hold"], "1/6");
    let o = example_odds(&rb, "volley");
    assert_eq!(o["runs"], 11, "one run per total 2..12");
    let fr: Vec<&str> =
        o["outcomes"].as_array().unwrap().iter().map(|c| c["fraction"].as_str().unwrap()).collect();
    assert_eq!(fr, ["5/6", "1/6"]);

    // Peter's 7.1.2 example run for every die: the outcomes cover all of them (their
    // probabilities sum to exactly 1), and the example's roll of 4 is one of six.
    let o = example_odds(&book("peter-the-great"), "a +1 CS differential with a +1 MR");
    assert_eq!(o["runs"], 6);
    let outcomes = o["outcomes"].as_array().unwrap();
    assert!(outcomes.len() >= 3, "{o}");
    assert_eq!(sum_fractions(outcomes.iter().map(|c| c["fraction"].as_str().unwrap())), (1, 1));
    assert_eq!(o["expectations_hold"], "1/6");

    // The human output; an unknown title lists the examples; a table with --example is a usage error.
    let t = run(&["odds", &rb, "--example", "aimed", "--quiet"]);
    let text = String::from_utf8_lossy(&t.stdout);
    assert!(text.contains("example \"aimed fire\" (§3.0): 16 runs"), "{text}");
    assert!(text.contains("the example's expectations hold with probability 1/6"), "{text}");
    let bad = run(&["odds", &rb, "--example", "charge", "--quiet"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("error[E0703]") && err.contains("a volley; aimed fire"), "{err}");
    let both = run(&["odds", &rb, "Crt", "--example", "aimed", "--quiet"]);
    assert_eq!(both.status.code(), Some(2));
}
