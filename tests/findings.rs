//! The `finding` declaration (issue 14, part 2): faults of the rules text met while
//! encoding, as data. `check` counts and lists them (human and JSON); a finding's
//! anchors name the paragraphs it is about without encoding them; a W0005 (an example
//! that holds under one reading of a ruling only) becomes a finding by itself.

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
    let p = std::env::temp_dir().join(format!("ks-findings-{}-{name}.ks", std::process::id()));
    std::fs::write(&p, body).expect("writes");
    p
}

const HEAD: &str = "rulebook \"F\" { numbering dotted; dice d6; }\n\
    contents { §1.0 \"Opening\" §2.0 \"Moving\" §3.0 \"Fighting\" }\n\
    §1.0 sides { Red, Blue }\n\
    §3.0 ruling who_rolls \"which side rolls\" { default attacker \"the attacker\"; defender \"read as a misprint\"; }\n\
    §1.0 sequence { draw \"nothing to play\"; }\n";

#[test]
fn findings_are_listed_and_do_not_encode() {
    let rb = write(
        "ok",
        &format!(
            "{HEAD}§2.0 §3.0 finding contradiction \"2.0 lets a unit move twice, 3.0 says once\";\n\
             §3.0 finding typo \"the attacker is called the defender\" ruling who_rolls;\n"
        ),
    );
    let o = ks(&["check", rb.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let f = v["report"]["findings"].as_array().expect("findings");
    assert_eq!(f.len(), 2);
    assert_eq!(f[0]["kind"], "contradiction");
    assert_eq!(f[0]["paragraphs"], serde_json::json!(["2.0", "3.0"]));
    assert_eq!(f[0]["source"], "declared");
    assert_eq!(f[1]["ruling"], "who_rolls");
    // 2.0 is named by a finding only: still missing. 3.0 is encoded by the ruling.
    let missing: Vec<&str> =
        v["report"]["missing"].as_array().expect("a").iter().filter_map(|x| x.as_str()).collect();
    assert_eq!(missing, ["2.0"]);
    // Human output counts them by kind and lists each.
    let o = ks(&["check", rb.to_str().expect("utf-8")]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("findings in the text: 2 (contradiction ×1, typo ×1)"), "{out}");
    assert!(out.contains("§2.0 §3.0 contradiction: 2.0 lets a unit move twice"), "{out}");
    assert!(out.contains("[ruling who_rolls]"), "{out}");
}

#[test]
fn bad_findings_are_errors() {
    let cases = [
        ("§2.0 finding mistake \"x\";\n", "E0117", "unknown finding kind `mistake`"),
        ("§2.0 finding typo \"x\" ruling nobody;\n", "E0114", "unknown ruling `nobody`"),
        ("§9.9 finding typo \"x\";\n", "E0201", "not in the contents"),
    ];
    for (i, (line, code, msg)) in cases.iter().enumerate() {
        let rb = write(&format!("bad{i}"), &format!("{HEAD}{line}"));
        let o = ks(&["check", "--color", "never", rb.to_str().expect("utf-8")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{line}: {err}");
        assert!(err.contains(&format!("error[{code}]")) && err.contains(msg), "{line}: {err}");
    }
    // The kinds are named in the note.
    let rb = write("bad-note", &format!("{HEAD}§2.0 finding mistake \"x\";\n"));
    let o = ks(&["check", "--color", "never", rb.to_str().expect("utf-8")]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("contradiction, example_disagrees, missing_data"));
}

/// Frederick's W0005 (its 9.41 example holds under one reading of `pass_river_modifier`
/// only) is listed as a finding the compiler made.
#[test]
fn w0005_becomes_a_finding() {
    let o = ks(&["check", "rulebooks/frederick-the-great", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let f = v["report"]["findings"].as_array().expect("findings");
    let w = f.iter().find(|f| f["source"] == "compiler").expect("a compiler finding");
    assert_eq!(w["kind"], "example_disagrees");
    assert_eq!(w["ruling"], "pass_river_modifier");
    assert!(w["paragraphs"].as_array().expect("a").iter().any(|p| p == "9.41"), "{w}");
}

/// A rulebook whose table `Fire` is read by `hits` with the roll `ROLL`.
fn fire_table(name: &str, table: &str, roll: &str) -> PathBuf {
    write(
        name,
        &format!(
            "{HEAD}§3.0 modifiers fire_drm(n: Int) {{ §3.0 +1 when n > 2; §3.0 -1 when n < 1; }}\n\
             §3.0 table Fire {table}\n\
             §3.0 procedure hits(n: Int) -> Int {{ return Fire[{roll}]; }}\n\
             §3.0 procedure fire() {{ let h = hits(3); log \"{{}}\", h; }}\n"
        ),
    )
}

#[test]
fn rows_no_roll_reaches_are_w0008_and_a_finding() {
    let rows = "{ roll 1d6; rows { 1-2: 0; 3-5: 1; 6: 2; 7: 3; 8: 4; } }";
    let rb = fire_table("dead", rows, "roll 1d6");
    let o = ks(&["check", rb.to_str().expect("utf-8"), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let diags = v["diagnostics"].as_array().expect("diagnostics");
    assert!(diags.iter().all(|d| d["severity"] != "error"), "{diags:?}");
    let w = diags.iter().find(|d| d["code"] == "W0008").unwrap_or_else(|| panic!("W0008: {v}"));
    let m = w["message"].as_str().expect("message");
    assert!(m.contains("rows 7, 8") && m.contains("1..6"), "{m}");
    let f = v["report"]["findings"].as_array().expect("findings");
    assert!(f.iter().any(|f| f["kind"] == "unreachable" && f["source"] == "compiler"), "{f:?}");

    // Near misses: modifiers that reach the rows; a clamped table whose last row takes
    // every roll above it; a roll with an unknown bound (a parameter).
    for (name, table, roll) in [
        ("drm", "{ roll 1d6; rows { 0: 0; 1-2: 0; 3-5: 1; 6: 2; 7: 3; } }", "fire_drm(n, roll 1d6)"),
        ("clamp", "{ beyond rows clamp; rows { 1-3: 0; 4: 1; } }", "roll 1d6 + 2"),
        (
            "unknown",
            "{ roll 1d6; beyond rows clamp; rows { 1-2: 0; 3-5: 1; 6: 2; 7: 3; 8: 4; } }",
            "roll 1d6 + n",
        ),
    ] {
        let rb = fire_table(name, table, roll);
        let o = ks(&["check", rb.to_str().expect("utf-8"), "--format", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        let diags = v["diagnostics"].as_array().expect("diagnostics");
        assert!(diags.iter().all(|d| d["code"] != "W0008"), "{name}: {diags:?}");
        assert!(diags.iter().all(|d| d["severity"] != "error"), "{name}: {diags:?}");
    }
}

/// A rulebook with one modifier set whose lines are `LINES`, over a unit rating 1..6
/// and a track 0..4.
fn modifier_lines(name: &str, lines: &str) -> PathBuf {
    write(
        name,
        &format!(
            "{HEAD}§1.0 rating str: 1..6 \"strength\"\n\
             §1.0 classes {{ foot }}\n§1.0 unit Foot: foot\n\
             §1.0 track fatigue per side: 0..4\n\
             §3.0 modifiers mods(u: Unit, n: Int) {{ {lines} }}\n\
             §3.0 procedure fight(u: Unit) -> Int {{ return mods(u, 1, u.str); }}\n"
        ),
    )
}

fn codes(rb: &std::path::Path) -> (Vec<serde_json::Value>, serde_json::Value) {
    let o = ks(&["check", rb.to_str().expect("utf-8"), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let diags = v["diagnostics"].as_array().expect("diagnostics").clone();
    assert!(diags.iter().all(|d| d["severity"] != "error"), "{diags:?}");
    (diags, v)
}

/// W0009: a modifier line whose condition no value within the declared ranges makes
/// true (a rating 1..6 compared with 7, a track 0..4 with a negative number, a sum of
/// both past their ends) is reported at the condition, and is a finding of the compiler.
#[test]
fn modifier_lines_that_never_apply_are_w0009_and_a_finding() {
    for (name, line) in [
        ("rating", "§3.0 +1 when u.str > 6;"),
        ("equal", "§3.0 +1 when u.str == 0;"),
        ("track", "§3.0 -1 when fatigue[u.side] < 0;"),
        ("sum", "§3.0 x2 when u.str + fatigue[u.side] >= 11;"),
    ] {
        let (diags, v) = codes(&modifier_lines(name, line));
        let w: Vec<_> = diags.iter().filter(|d| d["code"] == "W0009").collect();
        assert_eq!(w.len(), 1, "{name}: {diags:?}");
        assert_eq!(w[0]["paragraphs"], serde_json::json!(["3.0"]), "{name}");
        let f = v["report"]["findings"].as_array().expect("findings");
        assert!(f.iter().any(|f| f["kind"] == "unreachable" && f["source"] == "compiler"), "{name}: {f:?}");
    }
    // Near misses: the range's own ends, a parameter with no known bounds, a sum that
    // can just reach, a comparison that always holds (harmless).
    for (name, line) in [
        ("end", "§3.0 +1 when u.str >= 6;"),
        ("low", "§3.0 +1 when fatigue[u.side] <= 0;"),
        ("param", "§3.0 +1 when n > 100;"),
        ("sum-reach", "§3.0 x2 when u.str + fatigue[u.side] >= 10;"),
        ("always", "§3.0 +1 when u.str > 0;"),
    ] {
        let (diags, _) = codes(&modifier_lines(name, line));
        assert!(diags.iter().all(|d| d["code"] != "W0009"), "{name}: {diags:?}");
    }
}
