//! `kriegsspiel aids` (issue 15, part 4): the player aids as one HTML page: the sequence
//! of play from the `sequence` declaration, every table with its exact odds, the
//! modifier lists and the terrain effects, each with its paragraph and supplied data
//! marked; checked on the bundled example, on Peter the Great, and in headless Chromium.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/browser.rs"]
mod browser;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ks(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kriegsspiel")).args(args).current_dir(root()).output().expect("runs")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ks-aids-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn aids(rulebook: &str, dir: &Path) -> String {
    let o = ks(&["aids", rulebook, "-o", dir.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::read_to_string(dir.join("index.html")).expect("index.html written")
}

/// The part of the page from `from` to the next `to` (both present).
fn between<'a>(page: &'a str, from: &str, to: &str) -> &'a str {
    let a = page.find(from).unwrap_or_else(|| panic!("no {from}"));
    let b = page[a..].find(to).map(|b| a + b).unwrap_or(page.len());
    &page[a..b]
}

/// The exact odds of the result `result` in column `col` of an odds grid.
fn cell<'a>(grid: &'a str, result: &str, col: usize) -> &'a str {
    let row = between(grid, &format!("<tr><th>{result}</th>"), "</tr>");
    let at = row
        .find(&format!("data-col=\"{col}\" data-fraction=\""))
        .unwrap_or_else(|| panic!("{result} col {col}: {row}"))
        + format!("data-col=\"{col}\" data-fraction=\"").len();
    &row[at..at + row[at..].find('"').expect("quote")]
}

/// The bundled example: its sequence (turns, the two phases in order, the victory
/// checks), its CRT with the odds counted by hand for 1d6, its modifiers as written,
/// its terrain with the supplied Hill marked.
#[test]
fn aids_of_the_bundled_example() {
    let dir = scratch("tiny");
    let page = aids("docs/examples/tiny.ks", &dir);
    let seq = between(&page, "<section id=\"sequence\">", "</section>");
    let (m, c) = (
        seq.find("data-phase=\"Movement\"").expect("Movement"),
        seq.find("data-phase=\"Combat\"").expect("Combat"),
    );
    assert!(m < c, "the phases in the sequence's order");
    assert!(seq.contains("march(s)") && seq.contains("attack(s)") && seq.contains("§3.0"), "{seq}");
    assert!(seq.contains("win Red &quot;Red held the hill&quot;") && seq.contains("§6.0"), "{seq}");

    let crt = between(&page, "data-table=\"Crt\"", "</article>");
    assert!(crt.contains("§5.0"));
    let grid = between(crt, "<table class=\"odds\"", "</table>");
    // Column 0..2 (index 1): rows 1 AR, 2 NE, 3-5 DR, 6 DE.
    assert_eq!(
        [cell(grid, "AR", 1), cell(grid, "NE", 1), cell(grid, "DR", 1), cell(grid, "DE", 1)],
        ["1/6", "1/6", "1/2", "1/6"]
    );
    // Column 3.. (index 2): row 1 NE, 2-4 DR, 5-6 DE.
    assert_eq!([cell(grid, "NE", 2), cell(grid, "DR", 2), cell(grid, "DE", 2)], ["1/6", "1/2", "1/3"]);

    let mods = between(&page, "data-modifiers=\"drm\"", "</article>");
    assert!(mods.contains(">−1<") && mods.contains("d.hex.terrain.defense &gt; 0"), "{mods}");
    assert!(mods.contains(">+1<") && mods.contains("d has Shaken") && mods.contains("§5.0.B"), "{mods}");

    let tec = between(&page, "<section id=\"terrain\">", "</section>");
    let hill = between(tec, "<tr><th>Hill", "</tr>");
    assert!(
        hill.contains("supplied: invented for the example") && hill.contains("<td>2</td><td>1</td>"),
        "{hill}"
    );
    let clear = between(tec, "<tr><th>Clear", "</tr>");
    assert!(!clear.contains("supplied"), "{clear}");
}

#[test]
fn aids_refuse_bad_input() {
    let o = ks(&["aids", "/nonexistent/rules"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0701]"), "{}", stderr(&o));
    let o = ks(&["aids", "rulebooks/peter-the-great", "--option", "no_such_option"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0703]") && stderr(&o).contains("no_such_option"), "{}", stderr(&o));
    let o = ks(&["aids", "docs/examples/tiny.ks", "-o", "/proc/version/aids"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("error[E0702]"), "{}", stderr(&o));
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Sum fractions "p/q" (or "1") exactly.
fn sum(fracs: &[String]) -> (u64, u64) {
    fracs.iter().fold((0, 1), |(n, d), f| {
        let (p, q) = match f.split_once('/') {
            Some((p, q)) => (p.parse::<u64>().expect("p"), q.parse::<u64>().expect("q")),
            None => (f.parse::<u64>().expect("whole"), 1),
        };
        let (n, d) = (n * q + p * d, d * q);
        let g = gcd(n, d);
        (n / g, d / g)
    })
}

/// In Chromium, on Peter the Great: every column of every odds grid sums to exactly 1,
/// the supplied CRT is marked, the three phases of a player turn are listed. A
/// screenshot is saved as target/aids-screenshot.png.
#[test]
fn aids_of_peter_in_a_browser() {
    let Some(chrome) = browser::chromium() else { return };
    let dir = scratch("peter");
    let _ = aids("rulebooks/peter-the-great", &dir);
    let url = format!("file://{}", dir.join("index.html").display());
    let o = browser::headless(&chrome, &scratch("profile"), &["--dump-dom", &url]);
    let dom = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(dom.contains("<main>"), "the browser rendered nothing: {}", stderr(&o));
    let mut grids = 0;
    for (at, _) in dom.match_indices("<table class=\"odds\"") {
        let grid = &dom[at..at + dom[at..].find("</table>").expect("closed")];
        let mut cols: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for (i, _) in grid.match_indices("data-col=\"") {
            let rest = &grid[i + 10..];
            let col = rest[..rest.find('"').expect("q")].to_string();
            let f = rest.find("data-fraction=\"").expect("fraction") + 15;
            cols.entry(col).or_default().push(rest[f..f + rest[f..].find('"').expect("q")].to_string());
        }
        assert!(!cols.is_empty(), "{grid}");
        for (c, fr) in cols {
            assert_eq!(sum(&fr), (1, 1), "column {c} of {grid}");
        }
        grids += 1;
    }
    assert!(grids >= 4, "Peter rolls on several tables: {grids}");
    let crt = between(&dom, "data-table=\"CRT\"", "</h3>");
    assert!(crt.contains("class=\"supplied\""), "{crt}");
    for p in ["Movement", "Combat", "Rally"] {
        assert!(dom.contains(&format!("data-phase=\"{p}\"")), "phase {p}");
    }
    let shot = root().join("target").join("aids-screenshot.png");
    let o = browser::headless(
        &chrome,
        &scratch("profile"),
        &["--hide-scrollbars", "--window-size=1200,1400", &format!("--screenshot={}", shot.display()), &url],
    );
    assert!(std::fs::metadata(&shot).is_ok_and(|m| m.len() > 1000), "no screenshot: {}", stderr(&o));
}
