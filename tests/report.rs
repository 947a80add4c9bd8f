//! `kriegsspiel report` (issue 14, part 3): the rules text paragraph by paragraph with
//! the text checker's findings and the encoding beside each paragraph, as JSON and as
//! a self-contained HTML page that a real browser (headless Chromium) renders.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/browser.rs"]
mod browser;
#[path = "support/texts.rs"]
mod texts;
use browser::chromium;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_kriegsspiel")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ks(args: &[&str]) -> Output {
    Command::new(bin()).args(args).current_dir(root()).output().expect("runs")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ks-report-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// A small text with one fault of the checker's (a reference to 3.0, which does not
/// exist) and a rulebook that encodes 1.1 (a declaration and a statement), waives 1.0,
/// supplies a table for 2.1.A and leaves 2.0 missing.
fn fixture(dir: &Path) -> (PathBuf, PathBuf) {
    let txt = dir.join("rules.txt");
    std::fs::write(
        &txt,
        "Bridgehead\n1.0 Introduction\nHistory only.\n1.1 Moving\nUnits move; see 3.0 for more.\n\
         2.0 Fighting\nWords.\n2.1 Fire\nA. Roll a die.\nB. Apply the result.\n",
    )
    .expect("writes");
    let rb = dir.join("rb.ks");
    std::fs::write(
        &rb,
        "rulebook \"Bridgehead\" { numbering dotted; dice d6; }\n\
         contents { §1.0 \"Introduction\" waived \"history, no rule effect\" §1.1 \"Moving\" §2.0 \"Fighting\" §2.1 \"Fire\" }\n\
         §1.1 sides { Red, Blue }\n\
         §2.1.A table Fire supplied \"the fire table is on a chart\" { roll 1d6; rows { 1: 0; 2: 0; 3: 0; 4: 1; 5: 1; 6: 1; } }\n\
         §2.1 procedure fire() {\n  §1.1 log \"moving\";\n  let x = Fire[roll 1d6];\n}\n\
         §1.1 sequence { call fire(); draw \"done\"; }\n\
         §1.1 §2.0 finding contradiction \"moving says once, fighting says twice\";\n",
    )
    .expect("writes");
    (txt, rb)
}

fn para<'a>(v: &'a serde_json::Value, number: &str) -> &'a serde_json::Value {
    v["paragraphs"].as_array().expect("paragraphs").iter().find(|p| p["number"] == number).expect(number)
}

#[test]
fn json_puts_findings_and_encoding_beside_their_paragraphs() {
    let dir = scratch("json");
    let (txt, rb) = fixture(&dir);
    let o = ks(&[
        "report",
        txt.to_str().expect("utf-8"),
        "--rulebook",
        rb.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    // The text checker's finding sits at 1.1, where the reference is.
    let p11 = para(&v, "1.1");
    let codes: Vec<&str> =
        p11["findings"].as_array().expect("a").iter().filter_map(|f| f["code"].as_str()).collect();
    assert_eq!(codes, ["T0101"]);
    assert!(para(&v, "2.0")["findings"].as_array().expect("a").is_empty());
    // Coverage states from the contents.
    assert_eq!(p11["coverage"], "encoded");
    assert_eq!(para(&v, "1.0")["coverage"], "waived");
    assert_eq!(para(&v, "1.0")["reason"], "history, no rule effect");
    // The finding sits at both its paragraphs and does not encode 2.0.
    assert_eq!(para(&v, "2.0")["coverage"], "missing");
    assert_eq!(para(&v, "2.0")["declared_findings"][0]["kind"], "contradiction");
    assert_eq!(p11["declared_findings"][0]["description"], "moving says once, fighting says twice");
    assert!(!p11["encodings"]
        .as_array()
        .expect("a")
        .iter()
        .any(|e| e["label"].as_str().is_some_and(|l| l.starts_with("finding"))));
    assert_eq!(v["summary"]["declared_findings"]["total"], 1);
    // 1.1 is encoded by a declaration and by a statement inside the procedure.
    let enc = p11["encodings"].as_array().expect("a");
    assert!(enc.iter().any(|e| e["label"] == "sides { Red, Blue }" && e["inner"] == false), "{enc:?}");
    assert!(
        enc.iter().any(|e| e["label"] == "log \"moving\";" && e["within"] == "procedure fire() {"),
        "{enc:?}"
    );
    // The item 2.1.A carries the table and its supplied reason; its text is its own.
    let a = para(&v, "2.1.A");
    assert!(a["encodings"][0]["label"].as_str().expect("s").starts_with("table Fire supplied"));
    assert_eq!(a["supplied"][0]["reason"], "the fire table is on a chart");
    assert_eq!(para(&v, "2.1")["text"], "2.1 Fire\n");
    // The summary counts.
    assert_eq!(v["summary"]["findings"]["errors"], 1);
    assert_eq!(v["summary"]["coverage"]["missing"], 1);
    assert_eq!(v["summary"]["supplied"], 1);
    // Without a rulebook: the text and its findings only.
    let o = ks(&["report", txt.to_str().expect("utf-8"), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["summary"].get("coverage").is_none());
    assert!(para(&v, "1.1")["coverage"].is_null());
    assert_eq!(para(&v, "1.1")["findings"][0]["code"], "T0101");
}

#[test]
fn bad_input_is_refused_with_a_code() {
    let o = ks(&["report", "/nonexistent/rules.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error[E0701]"));
    let dir = scratch("bad");
    let (txt, _) = fixture(&dir);
    let o = ks(&["report", txt.to_str().expect("utf-8"), "-o", "/nonexistent/dir/out.html"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error[E0702]"));
}

fn headless(chrome: &Path, args: &[&str]) -> Output {
    browser::headless(chrome, &scratch("chrome-profile"), args)
}

/// The page as the browser parsed it (`--dump-dom`): each finding and each encoding is
/// inside the section of its paragraph. A screenshot is saved beside the build
/// (target/report-screenshot.png) for people to look at.
#[test]
fn the_html_report_renders_in_a_browser() {
    let Some(chrome) = chromium() else { return };
    let dir = scratch("html");
    let (txt, rb) = fixture(&dir);
    let html = dir.join("report.html");
    let o = ks(&[
        "report",
        txt.to_str().expect("utf-8"),
        "--rulebook",
        rb.to_str().expect("utf-8"),
        "-o",
        html.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let url = format!("file://{}", html.display());
    let dom = headless(&chrome, &["--dump-dom", &url]);
    let dom = String::from_utf8_lossy(&dom.stdout).into_owned();
    assert!(dom.contains("<main>"), "the browser rendered nothing: {dom}");
    // Cut the DOM into its paragraph sections.
    let section = |number: &str| -> String {
        let marker = format!("data-number=\"{number}\"");
        let at = dom.find(&marker).unwrap_or_else(|| panic!("no section {number} in {dom}"));
        let end = dom[at..].find("</section>").map(|e| at + e).unwrap_or(dom.len());
        dom[at..end].to_string()
    };
    let s11 = section("1.1");
    assert!(s11.contains("data-coverage=\"encoded\""), "{s11}");
    assert!(s11.contains("data-code=\"T0101\""), "the finding is beside 1.1: {s11}");
    assert!(s11.contains("sides { Red, Blue }"), "{s11}");
    let s20 = section("2.0");
    assert!(s20.contains("data-coverage=\"missing\"") && !s20.contains("T0101"), "{s20}");
    assert!(s20.contains("data-kind=\"contradiction\""), "the declared finding is beside 2.0: {s20}");
    assert!(section("1.0").contains("history, no rule effect"));
    assert!(section("2.1.A").contains("the fire table is on a chart"));
    // Escaping: the rulebook's quotes and braces arrive as text.
    assert!(s11.contains("log \"moving\";") || s11.contains("log &quot;moving&quot;;"), "{s11}");

    let shot = root().join("target").join("report-screenshot.png");
    let o = headless(
        &chrome,
        &["--hide-scrollbars", "--window-size=1280,900", &format!("--screenshot={}", shot.display()), &url],
    );
    let meta = std::fs::metadata(&shot);
    assert!(
        meta.as_ref().is_ok_and(|m| m.len() > 1000),
        "no screenshot: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// On a real rulebook (when the text is present): every paragraph of Peter the Great
/// gets a section, and the three checker findings sit at 2.1.1.C, 5.2.1 and 13.18.3.
#[test]
fn report_on_peter_the_great() {
    let Some(txt) = texts::text_path(&root(), "peter-the-great.txt") else { return };
    let o = ks(&[
        "report",
        txt.to_str().expect("utf-8"),
        "--rulebook",
        "rulebooks/peter-the-great",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["paragraphs"].as_array().expect("a").len(), 1 + 192 + 251);
    for n in ["2.1.1.C", "5.2.1", "13.18.3"] {
        assert!(!para(&v, n)["findings"].as_array().expect("a").is_empty(), "{n}");
    }
    // The page's coverage agrees with `check`'s.
    let c = ks(&["check", "rulebooks/peter-the-great", "--format", "json"]);
    let c: serde_json::Value = serde_json::from_slice(&c.stdout).expect("check json");
    let n = |k: &str| c["report"][k].as_array().expect("a").len();
    assert_eq!(v["summary"]["coverage"]["encoded"], n("encoded"));
    assert_eq!(v["summary"]["coverage"]["waived"], n("waived"));
    assert_eq!(v["summary"]["coverage"]["missing"], n("missing"));
    assert_eq!(para(&v, "1.0")["coverage"], "waived");
    assert!(!para(&v, "7.1.2")["encodings"].as_array().expect("a").is_empty());
}
