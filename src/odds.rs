//! `odds RULEBOOK TABLE [--drm N]`: the exact probability of every result in every column
//! of a die-roll table, by enumerating its dice (`roll 2d6`: all 36 faces, the sums
//! counted), adding the modifier and reading the row as a game does, with the table's
//! `beyond rows` clamp (or, without one, a roll off the table: R0007 in a game). Exact:
//! fractions of whole counts, no sampling and no floats in the counting.
//!
//! `odds RULEBOOK --example TITLE`: a worked example's situation run for every way its
//! dice fall (`kriegsspiel_compiler::enumerate`), each distinct outcome (the log's
//! effects) with its exact probability.

use crate::{build_config, out, Format, Ui};
use kriegsspiel_dsl::ast::{DeclKind, Rulebook};
use kriegsspiel_runtime::program::TableDef;
use kriegsspiel_runtime::{Program, Value};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The label of a result as the log prints it.
pub(crate) fn label(prog: &Program, v: Value) -> String {
    match v {
        Value::Sym(s) => prog.symbols.get(s as usize).map(|x| x.name.clone()).unwrap_or_else(|| "?".into()),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Nil => "none".into(),
        other => format!("{other:?}"),
    }
}

pub(crate) fn range_label(lo: i64, hi: i64) -> String {
    match (lo == i64::MIN, hi == i64::MAX) {
        (true, true) => "all".into(),
        (true, false) => format!("..{hi}"),
        (false, true) => format!("{lo}.."),
        (false, false) if lo == hi => format!("{lo}"),
        _ => format!("{lo}..{hi}"),
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `k/n` reduced.
pub(crate) fn fraction(k: u128, n: u128) -> String {
    if k == 0 {
        return "0".into();
    }
    let g = gcd(k, n);
    if n / g == 1 {
        format!("{}", k / g)
    } else {
        format!("{}/{}", k / g, n / g)
    }
}

/// How many ways `count` dice of `sides` faces (each reading 1+offset .. sides+offset)
/// make each total: (lowest total, ways per total from it), and the number of outcomes.
pub(crate) fn dice_totals(count: u32, sides: u32, offset: i64) -> (i64, Vec<u128>, u128) {
    let mut ways: Vec<u128> = vec![1];
    for _ in 0..count {
        let mut next = vec![0u128; ways.len() + sides as usize - 1];
        for (i, &w) in ways.iter().enumerate() {
            for f in 0..sides as usize {
                next[i + f] += w;
            }
        }
        ways = next;
    }
    let total: u128 = (sides as u128).pow(count);
    (count as i64 * (1 + offset), ways, total)
}

/// The rolled dice of a table: its `roll` clause in the rulebook's declarations (the
/// compiled table does not keep it). Several declarations of the name (a layer that
/// replaces the table) must agree.
pub(crate) fn table_dice(book: &Rulebook, name: &str) -> Result<Option<(u32, u32)>, String> {
    let mut found: Vec<Option<(u32, u32)>> = Vec::new();
    for d in &book.decls {
        if let DeclKind::Table(t) = &d.kind {
            if t.name.name == name {
                found.push(t.roll.map(|r| (r.count, r.sides)));
            }
        }
    }
    match found.split_first() {
        None => Ok(None),
        Some((first, rest)) if rest.iter().all(|x| x == first) => Ok(*first),
        Some(_) => Err(format!(
            "the declarations of table {name} roll different dice (layers); odds cannot tell which"
        )),
    }
}

/// The odds of one table as JSON: per column, each result's ways and fraction.
pub(crate) fn odds(prog: &Program, t: &TableDef, dice: (u32, u32), drm: i64) -> serde_json::Value {
    let (count, sides) = dice;
    let offset = if sides == prog.die_sides { prog.die_offset } else { 0 };
    let (lo, ways, total) = dice_totals(count, sides, offset);
    let ncols = t.columns.len().max(1);
    let mut columns = Vec::new();
    for c in 0..ncols {
        let name = match t.odds.get(c) {
            Some(&(n, d)) => format!("{n}:{d}"),
            None => t.columns.get(c).map(|&(a, b)| range_label(a, b)).unwrap_or_else(|| "all".into()),
        };
        // Results in the order they first appear down the column; "off the table" last.
        let mut order: Vec<String> = Vec::new();
        let mut counts: BTreeMap<String, u128> = BTreeMap::new();
        for (i, &w) in ways.iter().enumerate() {
            if w == 0 {
                continue;
            }
            let roll = lo + i as i64 + drm;
            let result = match t.row_of(roll) {
                Some(r) => label(prog, t.cells.get(r * ncols + c).copied().unwrap_or(Value::Nil)),
                None => "off the table (R0007)".to_string(),
            };
            if !counts.contains_key(&result) {
                order.push(result.clone());
            }
            *counts.entry(result).or_default() += w;
        }
        let results: Vec<serde_json::Value> = order
            .iter()
            .map(|r| {
                let k = counts[r];
                json!({ "result": r, "ways": k as u64, "fraction": fraction(k, total), "probability": k as f64 / total as f64 })
            })
            .collect();
        columns.push(json!({ "column": name, "results": results }));
    }
    json!({
        "table": t.name,
        "para": prog.para(t.para),
        "dice": format!("{count}d{sides}"),
        "outcomes": total as u64,
        "drm": drm,
        "beyond_rows": format!("{:?}", t.beyond_rows).to_lowercase(),
        "columns": columns,
    })
}

/// The odds as text: one block per column, each result with its fraction and percentage.
fn text(o: &serde_json::Value) -> String {
    let mut s = format!(
        "{} (§{}): {}, {} equally likely outcomes, modifier {:+}, rows beyond the table: {}\n",
        o["table"].as_str().unwrap_or("?"),
        o["para"].as_str().unwrap_or("?"),
        o["dice"].as_str().unwrap_or("?"),
        o["outcomes"],
        o["drm"].as_i64().unwrap_or(0),
        o["beyond_rows"].as_str().unwrap_or("?")
    );
    for c in o["columns"].as_array().into_iter().flatten() {
        s.push_str(&format!("  column {}\n", c["column"].as_str().unwrap_or("?")));
        for r in c["results"].as_array().into_iter().flatten() {
            s.push_str(&format!(
                "    {:<24} {:>9}  {:>6.2}%\n",
                r["result"].as_str().unwrap_or("?"),
                r["fraction"].as_str().unwrap_or("?"),
                r["probability"].as_f64().unwrap_or(0.0) * 100.0
            ));
        }
    }
    s
}

pub(crate) fn cmd_odds(rulebook: &Path, table: &str, drm: i64, format: Format, ui: Ui) -> u8 {
    let (sources, c) = match build_config(rulebook, Format::Human, None, ui) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(prog) = c.program else {
        say!("error: the rulebook has errors; no odds");
        return 1;
    };
    let Some(t) = prog.tables.iter().find(|t| t.name == table) else {
        let names: Vec<&str> = prog.tables.iter().map(|t| t.name.as_str()).collect();
        say!("error[E0703]: no table named {table:?} (tables: {})", names.join(", "));
        return 2;
    };
    let (book, _) = kriegsspiel_dsl::parse_all(&sources);
    let dice = match table_dice(&book, table) {
        Ok(Some(d)) => d,
        Ok(None) => {
            say!(
                "error[E0703]: table {table} (§{}) has no `roll` clause: its rows are read by a value, not rolled, so it has no odds",
                prog.para(t.para)
            );
            return 2;
        }
        Err(e) => {
            say!("error[E0703]: {e} (§{})", prog.para(t.para));
            return 2;
        }
    };
    let o = odds(&prog, t, dice, drm);
    let s = match format {
        Format::Json => format!("{o}\n"),
        Format::Human => text(&o),
    };
    match out(&s) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

/// Most runs `odds --example` makes: each is one way the example's dice fall.
const MAX_RUNS: usize = 100_000;

/// `a/b + c/d`, reduced.
fn add_fraction((a, b): (u128, u128), (c, d): (u128, u128)) -> Option<(u128, u128)> {
    let n = a.checked_mul(d)?.checked_add(c.checked_mul(b)?)?;
    let m = b.checked_mul(d)?;
    let g = gcd(n, m).max(1);
    Some((n / g, m / g))
}

/// Log events that make an outcome: what the procedure did to the game, not the rolls,
/// lookups, modifiers and decisions on the way.
fn is_effect(kind: &str) -> bool {
    !matches!(kind, "roll" | "lookup" | "modifiers" | "decision" | "turn" | "phase" | "phase_end" | "header")
}

/// The example's enumeration as JSON: each distinct outcome (its effects as account
/// lines) with its exact probability, and how often the expectations hold.
pub(crate) fn example_odds(
    e: &kriegsspiel_compiler::enumerate::Enumerated,
) -> Result<serde_json::Value, String> {
    use kriegsspiel_runtime::game::ExampleOutcome;
    let mut order: Vec<Vec<String>> = Vec::new();
    let mut prob: BTreeMap<Vec<String>, (u128, u128)> = BTreeMap::new();
    let mut holds = (0u128, 1u128);
    let mut errors = (0u128, 1u128);
    let overflow = || "the probabilities do not fit in 128 bits".to_string();
    for b in &e.branches {
        let mut lines = Vec::new();
        for l in b.log.lines() {
            let Ok(serde_json::Value::Object(ev)) = serde_json::from_str::<serde_json::Value>(l) else {
                continue;
            };
            if ev.get("type").and_then(|t| t.as_str()).map(is_effect).unwrap_or(false) {
                lines.push(crate::account::event_line(&ev));
            }
        }
        if let ExampleOutcome::Error(err) = &b.outcome {
            lines.push(format!("runtime error {}: {}", err.code, err.message));
            errors = add_fraction(errors, (b.ways, b.outcomes)).ok_or_else(overflow)?;
        }
        if matches!(b.outcome, ExampleOutcome::Passed) {
            holds = add_fraction(holds, (b.ways, b.outcomes)).ok_or_else(overflow)?;
        }
        if !prob.contains_key(&lines) {
            order.push(lines.clone());
        }
        let p = prob.entry(lines).or_insert((0, 1));
        *p = add_fraction(*p, (b.ways, b.outcomes)).ok_or_else(overflow)?;
    }
    let outcomes: Vec<serde_json::Value> = order
        .iter()
        .map(|lines| {
            let (n, d) = prob[lines];
            json!({ "fraction": fraction(n, d), "probability": n as f64 / d as f64, "effects": lines })
        })
        .collect();
    let rolls = e.branches.iter().map(|b| b.rolls.len()).max().unwrap_or(0);
    Ok(json!({
        "example": e.title,
        "para": e.para,
        "runs": e.branches.len(),
        "most_rolls": rolls,
        "outcomes": outcomes,
        "expectations": e.expectations,
        "expectations_hold": fraction(holds.0, holds.1),
        "runtime_errors": fraction(errors.0, errors.1),
    }))
}

fn example_text(o: &serde_json::Value) -> String {
    let mut s = format!(
        "example \"{}\" (§{}): {} runs (one per way the dice fall, up to {} rolls), {} outcomes\n",
        o["example"].as_str().unwrap_or("?"),
        o["para"].as_str().unwrap_or("?"),
        o["runs"],
        o["most_rolls"],
        o["outcomes"].as_array().map(|a| a.len()).unwrap_or(0)
    );
    for c in o["outcomes"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "  {:>9}  {:>6.2}%\n",
            c["fraction"].as_str().unwrap_or("?"),
            c["probability"].as_f64().unwrap_or(0.0) * 100.0
        ));
        let effects = c["effects"].as_array().cloned().unwrap_or_default();
        if effects.is_empty() {
            s.push_str("      (no effect)\n");
        }
        for l in effects {
            s.push_str(&format!("      {}\n", l.as_str().unwrap_or("?")));
        }
    }
    if o["expectations"].as_u64().unwrap_or(0) > 0 {
        s.push_str(&format!(
            "  the example's expectations hold with probability {}\n",
            o["expectations_hold"].as_str().unwrap_or("?")
        ));
    }
    if o["runtime_errors"] != "0" {
        s.push_str(&format!(
            "  runtime errors with probability {}\n",
            o["runtime_errors"].as_str().unwrap_or("?")
        ));
    }
    s
}

/// `odds RULEBOOK --example TITLE`.
pub(crate) fn cmd_odds_example(rulebook: &Path, title: &str, format: Format, ui: Ui) -> u8 {
    let (sources, c) = match build_config(rulebook, Format::Human, None, ui) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if c.program.is_none() {
        say!("error: the rulebook has errors; no odds");
        return 1;
    }
    let e = match kriegsspiel_compiler::enumerate::enumerate(&sources, title, MAX_RUNS) {
        Ok(e) => e,
        Err(m) => {
            say!("error[E0703]: {m}");
            return 2;
        }
    };
    let o = match example_odds(&e) {
        Ok(o) => o,
        Err(m) => {
            say!("error[E0703]: {m}");
            return 2;
        }
    };
    let s = match format {
        Format::Json => format!("{o}\n"),
        Format::Human => example_text(&o),
    };
    match out(&s) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_dice_totals_by_hand() {
        let (lo, ways, total) = dice_totals(2, 6, 0);
        assert_eq!((lo, total), (2, 36));
        assert_eq!(ways, [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]);
        // A d10 read 0..9: one die gives 0..9 once each.
        let (lo, ways, total) = dice_totals(1, 10, -1);
        assert_eq!((lo, total), (0, 10));
        assert!(ways.iter().all(|&w| w == 1));
        let (_, ways, total) = dice_totals(3, 6, 0);
        assert_eq!(total, 216);
        assert_eq!(ways[10 - 3], 27, "27 ways to roll 10 on 3d6");
    }

    #[test]
    fn fractions_are_reduced() {
        assert_eq!(fraction(21, 36), "7/12");
        assert_eq!(fraction(36, 36), "1");
        assert_eq!(fraction(0, 36), "0");
        assert_eq!(fraction(3, 6), "1/2");
    }
}
