//! `run --games N --compare --ruling X=Y` (or `--option O`): the same seeds played twice,
//! by the rulebook's defaults and with the rulings and options given, and for each result
//! (a side's win, a draw) whether its rate moved beyond the noise.
//!
//! The two batches share their seeds, so the comparison is paired: a seed whose result is
//! the same both ways says nothing about the change; the seeds where a result was gained
//! or lost are counted, and a two-sided sign test (exact binomial, p = 1/2) on them gives
//! the p-value. A result "moved" when p < 0.05. The games are deterministic, so the
//! comparison is too: the same command gives the same numbers.

use crate::balance::{svg_win_rates, wilson};
use crate::html::esc;
use crate::run::{play_batch, resolve_format, RunArgs, RunFormat};
use crate::{build_config, out, Format, Ui};
use kriegsspiel_runtime::game::{GameOptions, GameOutcome};
use kriegsspiel_runtime::Program;
use serde_json::{json, Value as Json};
use std::fmt::Write as _;
use std::io::Write as _;

/// Below this p-value a change of rate is reported as beyond the noise.
const ALPHA: f64 = 0.05;

pub(crate) fn cmd_compare(prog_b: &Program, base_b: GameOptions, n: u64, a: &RunArgs, ui: Ui) -> u8 {
    // The defaults: the configuration without the options (compiled again only when
    // options change the program), and no rulings chosen.
    let compiled;
    let prog_a = if a.options.is_empty() {
        prog_b
    } else {
        let quiet = Ui { quiet: true, ..ui };
        match build_config(&a.rulebook, Format::Human, Some(&[]), quiet) {
            Ok((_, c)) => match c.program {
                Some(p) => {
                    compiled = p;
                    &compiled
                }
                None => {
                    say!("error: the rulebook has errors without the options; nothing to compare");
                    return 1;
                }
            },
            Err(code) => return code,
        }
    };
    let base_a = GameOptions {
        rulings: Default::default(),
        options: Default::default(),
        native: crate::native::built_in_for(prog_a),
        ..base_b.clone()
    };
    let dir = |name: &str| a.log.as_ref().map(|d| d.join(name));
    let batch_a = match play_batch(prog_a, &base_a, n, a, dir("defaults").as_deref(), " (defaults)", ui) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let batch_b = match play_batch(prog_b, &base_b, n, a, dir("changed").as_deref(), " (changed)", ui) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let report_a = batch_a.report(prog_a, &base_a, n);
    let report_b = batch_b.report(prog_b, &base_b, n);
    let cmp = comparison(prog_b, &base_b, n, &batch_a.outcomes, &batch_b.outcomes);
    let all = json!({ "comparison": cmp, "defaults": report_a, "changed": report_b });
    if let Some(file) = &a.html {
        if let Err(e) = std::fs::write(file, html(&all)) {
            say!("error[E0702]: cannot write {}: {e}", file.display());
            return 2;
        }
    }
    let shown = match resolve_format(a.format, true) {
        RunFormat::Text => text(&all),
        _ => format!("{all}\n"),
    };
    if let Err(code) = out(&shown) {
        return code;
    }
    if batch_a.errors + batch_b.errors > 0 {
        1
    } else {
        0
    }
}

/// A game's result as a key: the winning side, "draw", or "error".
fn result_of(o: &GameOutcome) -> String {
    match &o.result {
        Ok(r) => r.winner.clone().unwrap_or_else(|| "draw".into()),
        Err(_) => "error".into(),
    }
}

/// Two-sided exact sign test: the probability, under "gained and lost equally likely",
/// of a split at least as uneven as `gained` : `lost`. Computed in log space so that
/// thousands of games do not underflow (the report's numbers, not rule evaluation).
pub(crate) fn sign_test(gained: u64, lost: u64) -> f64 {
    let m = gained + lost;
    if m == 0 {
        return 1.0;
    }
    let k = gained.min(lost);
    // ln P(X = i) for X ~ Bin(m, 1/2), summed for i <= k.
    let ln2 = std::f64::consts::LN_2;
    let mut ln_c = 0.0f64; // ln C(m, 0)
    let mut terms = Vec::with_capacity(k as usize + 1);
    for i in 0..=k {
        if i > 0 {
            ln_c += ((m - i + 1) as f64).ln() - (i as f64).ln();
        }
        terms.push(ln_c - m as f64 * ln2);
    }
    let top = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let tail = top.exp() * terms.iter().map(|t| (t - top).exp()).sum::<f64>();
    (2.0 * tail).min(1.0)
}

fn comparison(
    prog: &Program,
    base: &GameOptions,
    n: u64,
    a: &[(GameOutcome, f64)],
    b: &[(GameOutcome, f64)],
) -> Json {
    let ra: Vec<String> = a.iter().map(|(o, _)| result_of(o)).collect();
    let rb: Vec<String> = b.iter().map(|(o, _)| result_of(o)).collect();
    let mut keys: Vec<String> = prog.sides.clone();
    keys.push("draw".into());
    if ra.iter().chain(&rb).any(|r| r == "error") {
        keys.push("error".into());
    }
    let games = ra.len().min(rb.len()) as u64;
    let rate = |k: u64| {
        let (lo, hi) = wilson(k, games);
        json!({ "games": k, "rate": if games > 0 { k as f64 / games as f64 } else { 0.0 }, "ci95": [lo, hi] })
    };
    let rows: Vec<Json> = keys
        .iter()
        .map(|k| {
            let (mut na, mut nb, mut gained, mut lost) = (0u64, 0u64, 0u64, 0u64);
            for (x, y) in ra.iter().zip(&rb) {
                na += u64::from(x == k);
                nb += u64::from(y == k);
                gained += u64::from(x != k && y == k);
                lost += u64::from(x == k && y != k);
            }
            let p = sign_test(gained, lost);
            json!({
                "result": k,
                "defaults": rate(na),
                "changed": rate(nb),
                "gained": gained,
                "lost": lost,
                "p": p,
                "moved": p < ALPHA,
            })
        })
        .collect();
    let differ = ra.iter().zip(&rb).filter(|(x, y)| x != y).count();
    let mean_turns = |v: &[(GameOutcome, f64)]| {
        let t: Vec<i64> = v.iter().filter_map(|(o, _)| o.result.as_ref().ok().map(|r| r.turn)).collect();
        if t.is_empty() {
            0.0
        } else {
            t.iter().sum::<i64>() as f64 / t.len() as f64
        }
    };
    json!({
        "rulebook": prog.title,
        "scenario": base.scenario,
        "seeds": [base.seed, base.seed + n.saturating_sub(1)],
        "games": n,
        "changed": {
            "rulings": base.rulings,
            "options": base.options,
        },
        "games_with_another_result": differ,
        "results": rows,
        "mean_turns": { "defaults": mean_turns(a), "changed": mean_turns(b) },
        "test": "two-sided exact sign test on the seeds whose result changed; moved when p < 0.05",
    })
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn f(v: &Json) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// The change asked for, as the command line wrote it.
fn change(c: &Json) -> String {
    let mut parts = Vec::new();
    if let Some(r) = c["changed"]["rulings"].as_object() {
        for (k, v) in r {
            parts.push(format!("--ruling {k}={}", v.as_str().unwrap_or("?")));
        }
    }
    for o in c["changed"]["options"].as_array().into_iter().flatten() {
        parts.push(format!("--option {}", o.as_str().unwrap_or("?")));
    }
    parts.join(" ")
}

pub(crate) fn text(all: &Json) -> String {
    let c = &all["comparison"];
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} — scenario {}: {} games, seeds {}..{}, by the defaults and with {}",
        c["rulebook"].as_str().unwrap_or("?"),
        c["scenario"].as_str().unwrap_or("?"),
        c["games"],
        c["seeds"][0],
        c["seeds"][1],
        change(c)
    );
    let _ = writeln!(
        o,
        "\n  {:<14} {:<26} {:<26} {:>7} {:>6}  {:>8}",
        "result", "defaults (95% interval)", "changed (95% interval)", "gained", "lost", "p"
    );
    for r in c["results"].as_array().into_iter().flatten() {
        let cell = |v: &Json| {
            format!("{:>6} [{} – {}]", pct(f(&v["rate"])), pct(f(&v["ci95"][0])), pct(f(&v["ci95"][1])))
        };
        let _ = writeln!(
            o,
            "  {:<14} {:<26} {:<26} {:>7} {:>6}  {:>8.4}  {}",
            r["result"].as_str().unwrap_or("?"),
            cell(&r["defaults"]),
            cell(&r["changed"]),
            r["gained"].as_u64().unwrap_or(0),
            r["lost"].as_u64().unwrap_or(0),
            f(&r["p"]),
            if r["moved"].as_bool() == Some(true) { "moved" } else { "within the noise" }
        );
    }
    let _ = writeln!(
        o,
        "\n{} of {} seeds ended with another result. Mean length {:.2} → {:.2} turns.",
        c["games_with_another_result"],
        c["games"],
        f(&c["mean_turns"]["defaults"]),
        f(&c["mean_turns"]["changed"])
    );
    let _ = writeln!(
        o,
        "gained / lost: seeds where the result came / went with the change; p: {}.",
        c["test"].as_str().unwrap_or("")
    );
    o
}

pub(crate) fn html(all: &Json) -> String {
    let c = &all["comparison"];
    let title = format!(
        "{} — scenario {}: {} games, defaults against {}",
        c["rulebook"].as_str().unwrap_or("?"),
        c["scenario"].as_str().unwrap_or("?"),
        c["games"],
        change(c)
    );
    let mut rows = String::new();
    for r in c["results"].as_array().into_iter().flatten() {
        let cell = |v: &Json| {
            format!("{} [{} – {}]", pct(f(&v["rate"])), pct(f(&v["ci95"][0])), pct(f(&v["ci95"][1])))
        };
        let moved = r["moved"].as_bool() == Some(true);
        let _ = write!(
            rows,
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.4}</td><td>{}</td></tr>",
            if moved { "moved" } else { "same" },
            esc(r["result"].as_str().unwrap_or("?")),
            cell(&r["defaults"]),
            cell(&r["changed"]),
            r["gained"],
            r["lost"],
            f(&r["p"]),
            if moved { "moved" } else { "within the noise" }
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
         <style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:2px 8px;text-align:left}}tr.moved td{{background:#fde9b0}}\
         pre{{background:#f4f4f4;padding:1em;overflow:auto}}</style></head><body><h1>{t}</h1>\
         <p>Seeds {s0}..{s1}, each played by the defaults and with the change; {d} ended with another result. \
         Mean length {ma:.2} → {mb:.2} turns.</p>\
         <table id=\"comparison\"><tr><th>result</th><th>defaults</th><th>changed</th><th>gained</th><th>lost</th><th>p</th><th></th></tr>{rows}</table>\
         <p>gained / lost: the seeds where the result came / went with the change; p: {test}.</p>\
         <h2>Defaults</h2>{wa}<h2>Changed</h2>{wb}<h2>The comparison as JSON</h2><pre>{json}</pre></body></html>\n",
        t = esc(&title),
        s0 = c["seeds"][0],
        s1 = c["seeds"][1],
        d = c["games_with_another_result"],
        ma = f(&c["mean_turns"]["defaults"]),
        mb = f(&c["mean_turns"]["changed"]),
        test = esc(c["test"].as_str().unwrap_or("")),
        wa = svg_win_rates(&all["defaults"]),
        wb = svg_win_rates(&all["changed"]),
        json = esc(&serde_json::to_string_pretty(c).unwrap_or_default()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_test_by_hand() {
        // 0 gained, 5 lost: 2 * (1/2)^5 = 1/16.
        assert!((sign_test(0, 5) - 0.0625).abs() < 1e-12);
        // 1 : 9 -> 2 * (1 + 10) / 1024.
        assert!((sign_test(1, 9) - 22.0 / 1024.0).abs() < 1e-12);
        assert!((sign_test(9, 1) - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(0, 0), 1.0);
        assert_eq!(sign_test(5, 5), 1.0);
        // Thousands of discordant seeds do not underflow.
        let p = sign_test(900, 1100);
        assert!(p > 0.0 && p < 1e-5, "{p}");
        assert!(sign_test(1000, 1000) > 0.9);
    }
}
