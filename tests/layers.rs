//! Layers (issue 11): declarations of a higher layer replace or amend those of a lower
//! one, or waive its paragraphs; the compiler checks the structure, `check` lists every
//! supersession and counts superseded paragraphs, a run plays one configuration and its
//! log names the layer of each rule from above the base.

use kriegsspiel_compiler::{compile, compile_with, Compilation, ContentStatus};
use kriegsspiel_runtime::game::{play, GameOptions};

/// Two files: the series rules (base) and a game's exclusive rules over them, with an
/// optional campaign layer above the exclusive one.
const SERIES: &str = r#"
rulebook "Layered" { numbering bracketed; parts S, E; dice d6; }
contents {
  §S[1.] "Pieces" §S[2.] "Marching" §S[3.] "Fighting" §S[4.] "Forage"
  §E[1.] "Exclusive rules" §E[2.] "Forced marches" §E[3.] "Bayonets" §E[4.] "No foraging" §E[5.] "Campaign"
}
§S[1.] sides { A, B }
§S[1.] track score per side: 0..99
§S[1.] track forage: 0..99
§S[2.] fn march(s: Side) -> Int = 1;
§S[3.] modifiers fight(s: Side) {
  §S[3.] +1 when s == A;
}
§S[4.] procedure gather(s: Side) { adjust forage by 1; }
§S[1.] procedure turn(s: Side) {
  adjust score[s] by march(s);
  adjust score[s] by fight(s, 0);
  call gather(s);
}
§S[1.] sequence {
  turns 2 { for s in order() { phase Play(s) { call turn(s); } } }
  if score[A] > score[B] { win A "more points"; }
  if score[B] > score[A] { win B "more points"; }
  draw "even";
}
§S[1.] scenario "s" "s" { turns 2; order A, B; }
"#;

const EXCLUSIVE: &str = r#"
§E[1.] layer exclusive "Exclusive rules" above base;
§E[5.] layer campaign "Campaign rules" above exclusive optional;
in layer exclusive;
§E[2.] replaces fn march(s: Side) -> Int = if s == B then 3 else 1;
§E[3.] amends modifiers fight(s: Side) {
  §E[3.] +2 when s == B;
}
§E[4.] waives §S[4.] "no foraging in this game";
§E[4.] replaces procedure gather(s: Side) { log "{} may not forage", s; }
§E[2.] example "B force-marches 3" {
  scenario "s";
  expect march(B) == 3 and fight(B, 0) == 2 and fight(A, 0) == 1;
}
in layer campaign;
§E[5.] replaces fn march(s: Side) -> Int = 5;
§E[5.] example "everyone marches 5 in the campaign" {
  scenario "s";
  expect march(A) == 5 and march(B) == 5;
}
"#;

fn sources(exclusive: &str) -> kriegsspiel_dsl::SourceMap {
    let mut s = kriegsspiel_dsl::SourceMap::new();
    s.add("a-series.ks", SERIES.to_string());
    s.add("b-exclusive.ks", exclusive.to_string());
    s
}

fn show(c: &Compilation, s: &kriegsspiel_dsl::SourceMap) {
    for d in &c.diagnostics {
        eprint!("{}", d.render(s));
    }
}

fn errors(exclusive: &str) -> Vec<&'static str> {
    let s = sources(exclusive);
    let c = compile(&s);
    show(&c, &s);
    c.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code).collect()
}

#[test]
fn check_lists_supersessions_and_counts_superseded_paragraphs() {
    let s = sources(EXCLUSIVE);
    let c = compile(&s);
    show(&c, &s);
    assert!(!c.has_errors());
    let r = &c.report;
    // Both layers' examples ran, each in its own configuration.
    assert_eq!((r.examples_run, r.examples_passed), (2, 2));
    let listed: Vec<(String, String, String)> =
        r.supersessions.iter().map(|x| (x.how.to_string(), x.what.clone(), x.layer.clone())).collect();
    for want in [
        ("replaces", "fn march", "exclusive"),
        ("amends", "modifiers fight", "exclusive"),
        ("waives", "§S[4.]", "exclusive"),
        ("replaces", "procedure gather", "exclusive"),
        ("replaces", "fn march", "campaign"),
    ] {
        assert!(
            listed.iter().any(|l| (l.0.as_str(), l.1.as_str(), l.2.as_str()) == want),
            "{want:?} not in {listed:?}"
        );
    }
    let ex = r.supersessions.iter().find(|x| x.what == "fn march" && x.layer == "exclusive").expect("listed");
    assert_eq!((ex.by.clone(), ex.of.clone()), (vec!["E[2.]".to_string()], vec!["S[2.]".to_string()]));
    // S[2.] and S[4.] are superseded (the exclusive layer is always in play); S[3.] is
    // amended, so still encoded; nothing is missing.
    let status = |n: &str| r.contents.iter().find(|e| e.0 == n).map(|e| e.2.clone()).expect("listed");
    assert_eq!(status("S[2.]"), ContentStatus::Superseded("E[2.]".into()));
    assert_eq!(status("S[4.]"), ContentStatus::Superseded("E[4.]".into()));
    assert_eq!(status("S[3.]"), ContentStatus::Encoded);
    assert_eq!(status("E[5.]"), ContentStatus::Encoded, "the optional layer's paragraphs count");
    assert!(r.missing.is_empty(), "{:?}", r.missing);
    assert_eq!(r.superseded.len(), 2);
    let text = r.render();
    assert!(text.contains("2 superseded"), "{text}");
    assert!(text.contains("§E[2.] replaces fn march (§S[2.]) [layer exclusive]"), "{text}");
}

#[test]
fn a_run_plays_one_configuration_and_names_the_layers() {
    let s = sources(EXCLUSIVE);
    let base = compile(&s).program.expect("compiles");
    let opts = |options: Vec<String>| GameOptions {
        scenario: "s".into(),
        options: options.into_iter().collect(),
        ..GameOptions::default()
    };
    // Exclusive rules in play: B marches 3 and fights +2 a turn, A 1 and +1; no forage.
    let out = play(&base, &opts(vec![])).expect("plays");
    let r = out.result.expect("ends");
    assert_eq!(r.winner.as_deref(), Some("B"));
    let log = out.log.text();
    assert!(log.contains(r#""type":"layers","layers":[{"layer":"base","title":"the base rules"},{"layer":"exclusive","title":"Exclusive rules"}]"#), "{log}");
    assert!(!log.contains(r#""track":"forage""#), "the replaced gathering never runs");
    assert!(
        log.contains(r#""para":"E[4.]","layer":"exclusive""#),
        "events of exclusive rules name the layer:\n{log}"
    );
    assert!(!log.contains(r#""para":"S[1.]","layer""#), "events of base rules name none:\n{log}");
    // The campaign layer must be compiled in to be played.
    let refused = play(&base, &opts(vec!["campaign".into()])).err().expect("refused");
    assert!(refused.contains("compile the rulebook with it"), "{refused}");
    let camp = compile_with(&s, &["campaign".to_string()]).program.expect("compiles");
    let out = play(&camp, &opts(vec!["campaign".into()])).expect("plays");
    assert_eq!(out.result.expect("ends").winner.as_deref(), Some("B"), "B still fights better");
    let log = out.log.text();
    assert!(log.contains(r#"{"layer":"campaign","title":"Campaign rules"}"#), "{log}");
    assert!(log.contains(r#""by":5,"value":5"#), "both sides march 5 under the campaign layer:\n{log}");
}

#[test]
fn each_layer_error_has_its_code() {
    // A replacement of nothing.
    assert_eq!(
        errors(
            &EXCLUSIVE
                .replace("replaces fn march(s: Side) -> Int = if", "replaces fn marsh(s: Side) -> Int = if")
        ),
        ["E0801"]
    );
    // `replaces` in the base layer has nothing below it.
    assert_eq!(
        errors(
            &(EXCLUSIVE.to_string() + "\nin layer base;\n§S[2.] replaces fn march(s: Side) -> Int = 2;\n")
        ),
        ["E0801"]
    );
    // Two layers in no order both replacing one declaration.
    let unordered = EXCLUSIVE.replace("above exclusive optional", "above base optional");
    assert_eq!(errors(&unordered), ["E0802"]);
    // A higher layer reusing a name without saying so.
    assert_eq!(
        errors(&EXCLUSIVE.replace("§E[4.] replaces procedure gather", "§E[4.] procedure gather")),
        ["E0803"]
    );
    // `amends` is for modifier sets; a replacement keeps the parameters.
    assert_eq!(
        errors(&EXCLUSIVE.replace(
            "§E[5.] replaces fn march(s: Side) -> Int = 5;",
            "§E[5.] amends fn march(s: Side) -> Int = 5;"
        )),
        ["E0804"]
    );
    assert_eq!(
        errors(&EXCLUSIVE.replace(
            "§E[5.] replaces fn march(s: Side) -> Int = 5;",
            "§E[5.] replaces fn march(s: Int) -> Int = 5;"
        )),
        ["E0804"]
    );
    // Anchors name a declared part.
    let s = sources(&EXCLUSIVE.replace("§E[3.] amends", "§X[3.] amends"));
    let c = compile(&s);
    let d = c.diagnostics.iter().find(|d| d.code == "E0204").expect("E0204");
    assert!(d.notes.iter().any(|n| n.contains("parts are S, E")), "{:?}", d.notes);
    // Unknown layers and cycles.
    assert_eq!(errors(&EXCLUSIVE.replace("in layer campaign;", "in layer campain;")), ["E0116"]);
    assert_eq!(errors(&EXCLUSIVE.replace("above base;", "above campaign;")), ["E0805", "E0805"]);
}
