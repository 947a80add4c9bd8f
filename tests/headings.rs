//! Anchors by heading (issue 14): a rulebook whose text has unnumbered headings
//! (Markdown `#` headings or plain titled sections) declares `numbering headings;` and
//! names its paragraphs `§"Title"`; `check --text` matches them to the text's headings.

use std::path::PathBuf;
use std::process::{Command, Output};

fn ks(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kriegsspiel"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

fn write(name: &str, body: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("ks-headings-{}-{name}", std::process::id()));
    std::fs::write(&p, body).expect("writes");
    p
}

const BOOK: &str = "rulebook \"Crossing\" { numbering headings; }\n\
    contents { §\"Bridgehead\" \"Bridgehead\" §\"Moving Units\" \"Moving Units\" §\"Sieges\" \"Sieges\" }\n\
    §\"Bridgehead\" sides { Red, Blue }\n\
    §\"Moving Units\" fn steps() -> Int = 2;\n\
    §\"Bridgehead\" sequence { §\"Moving Units\" log \"{}\", steps(); draw \"nothing more\"; }\n";

#[test]
fn headings_are_anchors_and_match_the_text() {
    let rb = write("book.ks", BOOK);
    let o = ks(&["check", rb.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let encoded: Vec<&str> =
        v["report"]["encoded"].as_array().expect("encoded").iter().filter_map(|x| x.as_str()).collect();
    assert_eq!(encoded, ["\"Bridgehead\"", "\"Moving Units\""]);
    assert_eq!(v["report"]["missing"][0], "\"Sieges\"");

    // The text: Markdown headings, then the same as plain titled sections.
    for (name, text) in [
        (
            "md.txt",
            "# Bridgehead\n\nTwo sides.\n\n## Moving Units\n\nOne hex.\n\n## Sieges\n\nThree turns.\n",
        ),
        ("plain.txt", "BRIDGEHEAD\n\nTwo sides.\n\nMoving Units\nOne hex.\n\nSieges\nThree turns.\n"),
    ] {
        let t = write(name, text);
        let o = ks(&["check", rb.to_str().expect("utf-8"), "--text", t.to_str().expect("utf-8")]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{name}: {out}{}", String::from_utf8_lossy(&o.stderr));
        assert!(out.contains("2 of 3"), "{name}: {out}");
    }

    // A contents entry the text lacks is E0206.
    let t = write("short.txt", "# Bridgehead\n\nTwo sides.\n\n## Moving Units\n\nOne hex.\n");
    let o = ks(&["check", rb.to_str().expect("utf-8"), "--text", t.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&o.stderr).to_string() + &String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("E0206") && err.contains("\"Sieges\""), "{err}");
}

#[test]
fn heading_anchors_need_the_headings_scheme_and_the_contents() {
    // A heading anchor in a numbered rulebook does not fit its scheme (E0204).
    let numbered = "rulebook \"N\" { numbering dotted; }\ncontents { §1.0 \"One\" }\n§1.0 sides { A, B }\n§\"One\" fn f() -> Int = 1;\n";
    let rb = write("numbered.ks", numbered);
    let o = ks(&["check", rb.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("E0204"), "{err}");
    // A heading not in the contents is E0201.
    let rb = write("unknown.ks", &format!("{BOOK}§\"Supply\" fn g() -> Int = 1;\n"));
    let o = ks(&["check", rb.to_str().expect("utf-8")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("E0201"), "{err}");
}
