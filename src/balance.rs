//! The balance report of `run --games N`: win rates per side with 95% Wilson intervals,
//! draws, victory reasons with their paragraphs, game length in turns, decisions and time
//! per game, and which rules fired (per paragraph: in how many games its code ran, and in
//! how many calls of rulebook code in all, `times`; paragraphs with code never fired). As text, JSON (`--format json`) and a self-contained
//! HTML page with SVG plots (`--html FILE`).
//!
//! Everything but the wall-clock fields (`seconds`, `seconds_per_game`, `threads`) is a
//! function of the games' results in seed order, so it does not depend on the number of
//! threads (tests/balance.rs).

use crate::html::esc;
use kriegsspiel_runtime::game::GameOutcome;
use kriegsspiel_runtime::program::FnKind;
use kriegsspiel_runtime::Program;
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// What one finished game (no runtime error) adds to the report.
pub(crate) struct Played<'a> {
    pub outcome: &'a GameOutcome,
    /// Wall-clock seconds the game took.
    pub seconds: f64,
}

/// The 95% Wilson score interval of `k` successes in `n` trials (z = 1.96), as (low,
/// high); (0, 1) for no trials.
pub(crate) fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At k = 0 (k = n) the bound is exactly 0 (1); the formula leaves a rounding
    // residue (1e-19) that would print in the JSON report.
    let lo = if k == 0.0 { 0.0 } else { (centre - half).max(0.0) };
    let hi = if k == n { 1.0 } else { (centre + half).min(1.0) };
    (lo, hi)
}

/// The paragraphs rulebook code is attributed to (each instruction's nearest anchor),
/// leaving out the worked examples' own code: the paragraphs that can fire in a game.
fn paragraphs_with_code(prog: &Program) -> BTreeSet<u16> {
    let mut set = BTreeSet::new();
    for f in &prog.functions {
        let example = f.name.starts_with("example: ") || f.name.starts_with("expect: ");
        if example && matches!(f.kind, FnKind::Procedure | FnKind::Fn) {
            continue;
        }
        set.insert(f.para);
        set.extend(f.paras.iter().copied());
    }
    set
}

/// Numeric order of dotted paragraph numbers ("7.1.2.E" after "7.1.2", "10.1" after "9.2").
fn para_key(p: &str) -> Vec<(u64, String)> {
    p.split('.').map(|part| (part.parse::<u64>().unwrap_or(u64::MAX), part.to_string())).collect()
}

/// The whole report as JSON (the text and HTML forms are rendered from it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn report(
    prog: &Program,
    scenario: &str,
    first_seed: u64,
    games: u64,
    played: &[Played],
    errors: u64,
    invariants: Json,
    seconds: f64,
    threads: usize,
) -> Json {
    let finished = played.len() as u64;
    let mut wins: BTreeMap<String, u64> = prog.sides.iter().map(|s| (s.clone(), 0)).collect();
    let mut draws = 0u64;
    let mut reasons: BTreeMap<(String, String, String), u64> = BTreeMap::new();
    let mut lengths: BTreeMap<i64, u64> = BTreeMap::new();
    let mut turns_sum = 0i64;
    let mut decisions = 0u64;
    let mut instructions = 0u64;
    let mut game_seconds = 0.0f64;
    let npara = prog.paragraphs.len();
    let mut fired_games = vec![0u64; npara];
    let mut fired_times = vec![0u64; npara];
    for p in played {
        let o = p.outcome;
        decisions += o.stats.decisions;
        instructions += o.stats.instructions;
        game_seconds += p.seconds;
        for (i, &n) in o.fired.iter().enumerate().take(npara) {
            if n > 0 {
                fired_games[i] += 1;
                fired_times[i] += n;
            }
        }
        let Ok(r) = &o.result else { continue };
        let who = match &r.winner {
            Some(w) => {
                *wins.entry(w.clone()).or_default() += 1;
                w.clone()
            }
            None => {
                draws += 1;
                "draw".to_string()
            }
        };
        *reasons.entry((who, r.reason.clone(), r.para.clone())).or_default() += 1;
        *lengths.entry(r.turn).or_default() += 1;
        turns_sum += r.turn;
    }
    let rate = |k: u64| {
        let (lo, hi) = wilson(k, finished);
        json!({ "games": k, "rate": if finished > 0 { k as f64 / finished as f64 } else { 0.0 }, "ci95": [lo, hi] })
    };
    let win_rates: serde_json::Map<String, Json> = wins.iter().map(|(s, &k)| (s.clone(), rate(k))).collect();
    let mut reason_list: Vec<_> = reasons.into_iter().collect();
    reason_list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let reason_json: Vec<Json> = reason_list
        .iter()
        .map(|((w, reason, para), n)| json!({ "winner": w, "reason": reason, "para": para, "games": n }))
        .collect();
    // Median and extremes of the game lengths.
    let sorted: Vec<i64> = lengths.iter().flat_map(|(&t, &n)| std::iter::repeat_n(t, n as usize)).collect();
    let median = if sorted.is_empty() {
        0.0
    } else if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2] as f64
    } else {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) as f64 / 2.0
    };
    let with_code = paragraphs_with_code(prog);
    let mut fired_list = Vec::new();
    let mut never = Vec::new();
    let mut ordered: Vec<u16> = with_code.into_iter().collect();
    ordered.sort_by_key(|&i| para_key(prog.para(i)));
    for i in ordered {
        let (g, t) = (
            fired_games.get(i as usize).copied().unwrap_or(0),
            fired_times.get(i as usize).copied().unwrap_or(0),
        );
        if g > 0 {
            fired_list.push(json!({ "para": prog.para(i), "games": g, "times": t }));
        } else {
            never.push(json!(prog.para(i)));
        }
    }
    let results: BTreeMap<String, u64> = {
        let mut m: BTreeMap<String, u64> =
            wins.iter().filter(|(_, &k)| k > 0).map(|(s, &k)| (s.clone(), k)).collect();
        if draws > 0 {
            m.insert("draw".into(), draws);
        }
        m
    };
    let per = |x: u64| if games > 0 { x / games } else { 0 };
    json!({
        "rulebook": prog.title,
        "scenario": scenario,
        "seeds": [first_seed, first_seed + games.saturating_sub(1)],
        "games": games,
        "results": results,
        "errors": errors,
        "invariants": invariants,
        "win_rates": win_rates,
        "draws": rate(draws),
        "reasons": reason_json,
        "turns": {
            "min": sorted.first().copied().unwrap_or(0),
            "median": median,
            "mean": if finished > 0 { turns_sum as f64 / finished as f64 } else { 0.0 },
            "max": sorted.last().copied().unwrap_or(0),
            "histogram": lengths.iter().map(|(t, n)| (t.to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
        },
        "average_turns": if finished > 0 { turns_sum as f64 / finished as f64 } else { 0.0 },
        "instructions_per_game": per(instructions),
        "decisions_per_game": per(decisions),
        "rules_fired": {
            "paragraphs_with_code": fired_list.len() + never.len(),
            "fired": fired_list,
            "never": never,
        },
        "seconds": seconds,
        "seconds_per_game": if games > 0 { game_seconds / games as f64 } else { 0.0 },
        "threads": threads,
    })
}

fn f(v: &Json) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The report for people (the JSON rendered as text).
pub(crate) fn text(r: &Json) -> String {
    let mut o = String::new();
    let games = r["games"].as_u64().unwrap_or(0);
    let _ = writeln!(
        o,
        "{} — scenario {}: {games} games, seeds {}..{}",
        r["rulebook"].as_str().unwrap_or("?"),
        r["scenario"].as_str().unwrap_or("?"),
        r["seeds"][0],
        r["seeds"][1]
    );
    let errors = r["errors"].as_u64().unwrap_or(0);
    if errors > 0 {
        let _ = writeln!(
            o,
            "{errors} games stopped with a runtime error (listed on stderr); rates are of the others"
        );
    }
    let _ = writeln!(o, "\nResults (95% Wilson interval)");
    let row = |o: &mut String, name: &str, v: &Json| {
        let _ = writeln!(
            o,
            "  {name:<16} {:>6} games  {:>6}  [{} – {}]",
            v["games"].as_u64().unwrap_or(0),
            pct(f(&v["rate"])),
            pct(f(&v["ci95"][0])),
            pct(f(&v["ci95"][1]))
        );
    };
    if let Some(m) = r["win_rates"].as_object() {
        for (side, v) in m {
            row(&mut o, side, v);
        }
    }
    row(&mut o, "draw", &r["draws"]);
    let _ = writeln!(o, "\nHow the games ended");
    for x in r["reasons"].as_array().into_iter().flatten() {
        let _ = writeln!(
            o,
            "  {:>6}  {}: {} (§{})",
            x["games"].as_u64().unwrap_or(0),
            x["winner"].as_str().unwrap_or("?"),
            x["reason"].as_str().unwrap_or("?"),
            x["para"].as_str().unwrap_or("?")
        );
    }
    let t = &r["turns"];
    let _ = writeln!(
        o,
        "\nGame length (turns): min {}, median {}, mean {:.2}, max {}",
        t["min"],
        t["median"],
        f(&t["mean"]),
        t["max"]
    );
    if let Some(h) = t["histogram"].as_object() {
        let most = h.values().filter_map(Json::as_u64).max().unwrap_or(1).max(1);
        for (turn, n) in h {
            let n = n.as_u64().unwrap_or(0);
            let bar = "#".repeat(((n * 40).div_ceil(most)) as usize);
            let _ = writeln!(o, "  {turn:>4} {n:>6}  {bar}");
        }
    }
    let _ = writeln!(
        o,
        "\nPer game: {} decisions, {} VM instructions, {:.4} s (wall-clock {:.2} s in all on {} threads)",
        r["decisions_per_game"],
        r["instructions_per_game"],
        f(&r["seconds_per_game"]),
        f(&r["seconds"]),
        r["threads"]
    );
    let rf = &r["rules_fired"];
    let fired = rf["fired"].as_array().cloned().unwrap_or_default();
    let never = rf["never"].as_array().cloned().unwrap_or_default();
    let _ = writeln!(
        o,
        "\nRules fired: {} of {} paragraphs with code ran in at least one game",
        fired.len(),
        rf["paragraphs_with_code"]
    );
    let _ = writeln!(o, "  {:<14} {:>8} {:>14}", "paragraph", "games", "calls");
    for x in &fired {
        let _ = writeln!(
            o,
            "  §{:<13} {:>8} {:>14}",
            x["para"].as_str().unwrap_or("?"),
            x["games"].as_u64().unwrap_or(0),
            x["times"].as_u64().unwrap_or(0)
        );
    }
    if never.is_empty() {
        let _ = writeln!(o, "Never fired: none");
    } else {
        let list: Vec<String> = never.iter().map(|p| format!("§{}", p.as_str().unwrap_or("?"))).collect();
        let _ = writeln!(o, "Never fired in {games} games ({}): {}", never.len(), list.join(", "));
    }
    o
}

/// Win rates with their intervals: one bar per side and draws, a whisker for the interval.
pub(crate) fn svg_win_rates(r: &Json) -> String {
    let mut rows: Vec<(String, &Json)> = Vec::new();
    if let Some(m) = r["win_rates"].as_object() {
        for (k, v) in m {
            rows.push((k.clone(), v));
        }
    }
    rows.push(("draw".into(), &r["draws"]));
    let (w, left, bar_h, gap) = (640.0, 140.0, 22.0, 12.0);
    let h = rows.len() as f64 * (bar_h + gap) + 30.0;
    let scale = w - left - 80.0;
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="win rates">"#
    );
    for (i, (name, v)) in rows.iter().enumerate() {
        let y = i as f64 * (bar_h + gap) + 10.0;
        let (rate, lo, hi) = (f(&v["rate"]), f(&v["ci95"][0]), f(&v["ci95"][1]));
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end" font-size="13">{}</text><rect class="bar" x="{left}" y="{y}" width="{:.1}" height="{bar_h}" fill="#4a78b0"><title>{}: {} [{} – {}]</title></rect><line x1="{:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#000" stroke-width="2"/><text x="{:.1}" y="{}" font-size="12">{}</text>"##,
            left - 8.0,
            y + 16.0,
            esc(name),
            rate * scale,
            esc(name),
            pct(rate),
            pct(lo),
            pct(hi),
            left + lo * scale,
            left + hi * scale,
            y + bar_h / 2.0,
            y + bar_h / 2.0,
            left + hi * scale + 6.0,
            y + 16.0,
            pct(rate)
        );
    }
    let _ = write!(s, r##"<line x1="{left}" x2="{left}" y1="0" y2="{}" stroke="#888"/></svg>"##, h - 20.0);
    s
}

/// Game length histogram: one column per number of turns.
fn svg_lengths(r: &Json) -> String {
    let h = r["turns"]["histogram"].as_object().cloned().unwrap_or_default();
    let most = h.values().filter_map(Json::as_u64).max().unwrap_or(1).max(1) as f64;
    let (col_w, plot_h) = (28.0, 160.0);
    let w = (h.len() as f64 * col_w + 60.0).max(200.0);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{}" role="img" aria-label="game length">"#,
        plot_h + 40.0
    );
    for (i, (turn, n)) in h.iter().enumerate() {
        let n = n.as_u64().unwrap_or(0) as f64;
        let bh = n / most * plot_h;
        let x = 30.0 + i as f64 * col_w;
        let _ = write!(
            s,
            r##"<rect class="bar" x="{x}" y="{:.1}" width="{}" height="{bh:.1}" fill="#6a9a4a"><title>{turn} turns: {n} games</title></rect><text x="{:.1}" y="{}" text-anchor="middle" font-size="11">{}</text><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10">{n}</text>"##,
            12.0 + plot_h - bh,
            col_w - 4.0,
            x + (col_w - 4.0) / 2.0,
            plot_h + 26.0,
            esc(turn),
            x + (col_w - 4.0) / 2.0,
            10.0 + plot_h - bh,
        );
    }
    s.push_str("</svg>");
    s
}

/// Rules fired: per paragraph with code, the share of games in which it ran.
fn svg_rules(r: &Json) -> String {
    let games = r["games"].as_u64().unwrap_or(1).max(1) as f64;
    let mut rows: Vec<(String, f64, String)> = Vec::new();
    for x in r["rules_fired"]["fired"].as_array().into_iter().flatten() {
        let g = x["games"].as_u64().unwrap_or(0);
        rows.push((
            x["para"].as_str().unwrap_or("?").to_string(),
            g as f64 / games,
            format!("{g} games, {} calls", x["times"]),
        ));
    }
    for p in r["rules_fired"]["never"].as_array().into_iter().flatten() {
        rows.push((p.as_str().unwrap_or("?").to_string(), 0.0, "never".into()));
    }
    rows.sort_by_key(|x| para_key(&x.0));
    let (left, row_h, scale) = (90.0, 14.0, 400.0);
    let h = rows.len() as f64 * row_h + 10.0;
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{h}" role="img" aria-label="rules fired">"#,
        left + scale + 120.0
    );
    for (i, (p, share, note)) in rows.iter().enumerate() {
        let y = i as f64 * row_h + 5.0;
        let fill = if *share == 0.0 { "#c0392b" } else { "#4a78b0" };
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end" font-size="11">§{}</text><rect class="bar" x="{left}" y="{y}" width="{:.1}" height="{}" fill="{fill}"><title>§{}: {}</title></rect><text x="{:.1}" y="{}" font-size="10" fill="{}">{}</text>"##,
            left - 6.0,
            y + 10.0,
            esc(p),
            (share * scale).max(if *share == 0.0 { 0.0 } else { 1.0 }),
            row_h - 3.0,
            esc(p),
            esc(note),
            left + share * scale + 4.0,
            y + 10.0,
            if *share == 0.0 { "#c0392b" } else { "#333" },
            esc(note)
        );
    }
    s.push_str("</svg>");
    s
}

/// The self-contained HTML page: the text report's content with the three plots.
pub(crate) fn html(r: &Json) -> String {
    let title = format!(
        "{} — scenario {}: {} games",
        r["rulebook"].as_str().unwrap_or("?"),
        r["scenario"].as_str().unwrap_or("?"),
        r["games"]
    );
    let mut reasons = String::new();
    for x in r["reasons"].as_array().into_iter().flatten() {
        let _ = write!(
            reasons,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>§{}</td></tr>",
            x["games"],
            esc(x["winner"].as_str().unwrap_or("?")),
            esc(x["reason"].as_str().unwrap_or("?")),
            esc(x["para"].as_str().unwrap_or("?"))
        );
    }
    let t = &r["turns"];
    let never: Vec<String> = r["rules_fired"]["never"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| format!("§{}", esc(p.as_str().unwrap_or("?"))))
        .collect();
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 8px;text-align:left}}pre{{background:#f4f4f4;padding:1em;overflow:auto}}</style>
</head><body>
<h1>{title}</h1>
<p>Seeds {s0}..{s1}; {errors} games stopped with a runtime error. {dpg} decisions and {ipg} VM instructions per game.</p>
<h2 id="wins">Win rates (95% Wilson intervals)</h2>
{wins}
<h2 id="reasons">How the games ended</h2>
<table><tr><th>games</th><th>winner</th><th>reason</th><th>paragraph</th></tr>{reasons}</table>
<h2 id="length">Game length (turns)</h2>
<p>min {tmin}, median {tmed}, mean {tmean:.2}, max {tmax}</p>
{lengths}
<h2 id="rules">Rules fired</h2>
<p>For each paragraph with code, the share of games in which its code ran, and in how many calls of rulebook code in all; red: never in these games.</p>
{rules}
<p>Never fired ({nnever}): {never}</p>
<h2>The report as JSON</h2>
<pre>{json}</pre>
</body></html>
"#,
        s0 = r["seeds"][0],
        s1 = r["seeds"][1],
        errors = r["errors"],
        dpg = r["decisions_per_game"],
        ipg = r["instructions_per_game"],
        wins = svg_win_rates(r),
        tmin = t["min"],
        tmed = t["median"],
        tmean = f(&t["mean"]),
        tmax = t["max"],
        lengths = svg_lengths(r),
        rules = svg_rules(r),
        nnever = never.len(),
        never = if never.is_empty() { "none".to_string() } else { never.join(", ") },
        json = esc(&serde_json::to_string_pretty(r).unwrap_or_default()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wilson intervals computed by hand (z = 1.96): 5 of 10 gives 0.5 ± 0.2634 / 1.3842
    /// around 0.5, i.e. [0.2366, 0.7634]; 0 of 10 gives [0, 0.2775]; 10 of 10 [0.7225, 1].
    #[test]
    fn wilson_intervals_match_hand_computed_cases() {
        let close = |a: f64, b: f64| (a - b).abs() < 5e-4;
        let (lo, hi) = wilson(5, 10);
        assert!(close(lo, 0.2366) && close(hi, 0.7634), "{lo} {hi}");
        let (lo, hi) = wilson(0, 10);
        assert!(lo == 0.0 && close(hi, 0.2775), "{lo} {hi}");
        let (lo, hi) = wilson(10, 10);
        assert!(close(lo, 0.7225) && hi == 1.0, "{lo} {hi}");
        let (lo, hi) = wilson(81, 263);
        assert!(close(lo, 0.2553) && close(hi, 0.3662), "{lo} {hi}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }

    #[test]
    fn paragraphs_sort_numerically() {
        let mut v = vec!["10.1", "9.2", "7.1.2.E", "7.1.2", "7.10"];
        v.sort_by_key(|p| para_key(p));
        assert_eq!(v, ["7.1.2", "7.1.2.E", "7.10", "9.2", "10.1"]);
    }
}
