//! Tables: shape, coverage of every roll, no overlapping rows or columns, typed cells.

use crate::env::{Env, Global};
use crate::types::Ty;
use kriegsspiel_dsl::ast::{Beyond as AstBeyond, Cell, Table};
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::program::{Beyond, TableDef};
use kriegsspiel_runtime::Value;

/// Lower and check one table. `die_sides` is the rulebook's die.
pub fn lower(env: &mut Env, t: &Table, para: &str, die_sides: u32, diags: &mut Vec<Diagnostic>) -> TableDef {
    let mut err = |code: &'static str, span, msg: String| {
        diags.push(Diagnostic::error(code, span, msg).with_paragraph(para.to_string()));
    };
    // Columns: ordered, non-overlapping, contiguous.
    let mut columns: Vec<(i64, i64)> = Vec::new();
    let mut odds: Vec<(i64, i64)> = Vec::new();
    if let Some(c) = &t.columns {
        // Odds-ratio columns: positive terms, strictly ascending ratios.
        for &(a, b, sp) in &c.odds {
            if a <= 0 || b <= 0 {
                err("E0404", sp, format!("odds {a}:{b} must have positive terms"));
                continue;
            }
            if let Some(&(pa, pb)) = odds.last() {
                if (a as i128) * (pb as i128) <= (pa as i128) * (b as i128) {
                    err(
                        "E0404",
                        sp,
                        format!("odds columns of `{}` must ascend: {a}:{b} after {pa}:{pb}", t.name.name),
                    );
                }
            }
            odds.push((a, b));
            columns.push((i64::MIN, i64::MAX));
        }
        for (i, r) in c.ranges.iter().enumerate() {
            let lo = r.lo.unwrap_or(i64::MIN);
            let hi = r.hi.unwrap_or(i64::MAX);
            if lo > hi {
                err("E0404", r.span, format!("column range of `{}` is empty", t.name.name));
            }
            if r.lo.is_none() && i != 0 {
                err("E0404", r.span, "only the first column may be open below".into());
            }
            if r.hi.is_none() && i + 1 != c.ranges.len() {
                err("E0404", r.span, "only the last column may be open above".into());
            }
            if let Some(&(_, phi)) = columns.last() {
                if lo <= phi {
                    err("E0404", r.span, format!("columns of `{}` overlap or go backwards", t.name.name));
                } else if lo != phi.saturating_add(1) {
                    err(
                        "E0404",
                        r.span,
                        format!("columns of `{}` leave a gap between {phi} and {lo}", t.name.name),
                    );
                }
            }
            columns.push((lo, hi));
        }
    } else {
        columns.push((i64::MIN, i64::MAX));
    }
    // Rows: ordered, non-overlapping, covering the dice.
    // Tables with a `roll` clause must give a result for every roll of those dice;
    // tables without one are keyed lookups (e.g. by range) and only need no gaps.
    let (n, s) = t.roll.map(|d| (d.count as i64, d.sides as i64)).unwrap_or((1, die_sides as i64));
    let off = if s == die_sides as i64 { env.die.1 } else { 0 };
    let (dlo, dhi) = (n * (1 + off), n * (s + off));
    let mut rows: Vec<(i64, i64)> = Vec::new();
    for r in &t.rows {
        if r.lo > r.hi {
            err("E0401", r.key_span, format!("row {}-{} is empty", r.lo, r.hi));
        }
        if let Some(&(_, phi)) = rows.last() {
            if r.lo <= phi {
                err(
                    "E0401",
                    r.key_span,
                    format!("row {}-{} of `{}` overlaps the row before it", r.lo, r.hi, t.name.name),
                );
            } else if r.lo != phi + 1 {
                err(
                    "E0402",
                    r.key_span,
                    format!("rows of `{}` leave a gap: no row for {}..{}", t.name.name, phi + 1, r.lo - 1),
                );
            }
        }
        rows.push((r.lo, r.hi));
        if r.cells.len() != columns.len() {
            err(
                "E0403",
                r.span,
                format!(
                    "row {} has {} cells but `{}` has {} columns",
                    r.lo,
                    r.cells.len(),
                    t.name.name,
                    columns.len()
                ),
            );
        }
    }
    if rows.is_empty() {
        err("E0407", t.name.span, format!("table `{}` has no rows", t.name.name));
    } else if t.roll.is_some() {
        let (lo, hi) = (rows[0].0, rows[rows.len() - 1].1);
        if lo > dlo || hi < dhi {
            let m = format!(
                "rows of `{}` cover {lo}..{hi} but {n}d{s} rolls {dlo}..{dhi}: no result for some rolls",
                t.name.name
            );
            err("E0402", t.name.span, m);
        }
    }
    // Cells: result codes of the declared group, or Ints.
    let group = match &t.result {
        Some(g) => match env.group_index(&g.name) {
            Some(i) => {
                env.used.insert(g.name.clone());
                Some(i)
            }
            None => {
                err("E0102", g.span, format!("unknown result type `{}`", g.name));
                None
            }
        },
        None => None,
    };
    let mut cells = Vec::new();
    for r in &t.rows {
        for (ci, c) in r.cells.iter().enumerate() {
            if ci >= columns.len() {
                break;
            }
            let v = match (c, group) {
                (Cell::Int(i, _), None) => Value::Int(*i),
                (Cell::Code(id), Some(g)) => match env.globals.get(&id.name) {
                    Some(Global::Code(sym, cg)) if *cg == g => Value::Sym(*sym),
                    _ => {
                        err(
                            "E0405",
                            id.span,
                            format!("`{}` is not a result of `{}`", id.name, env.groups[g].0),
                        );
                        Value::Nil
                    }
                },
                (Cell::Code(id), None) => {
                    err(
                        "E0405",
                        id.span,
                        format!(
                            "table `{}` has Int cells (no `result` clause) but `{}` is a name",
                            t.name.name, id.name
                        ),
                    );
                    Value::Nil
                }
                (Cell::Int(_, sp), Some(g)) => {
                    err(
                        "E0405",
                        *sp,
                        format!("cells of `{}` must be results of `{}`", t.name.name, env.groups[g].0),
                    );
                    Value::Nil
                }
            };
            cells.push(v);
        }
        for _ in r.cells.len()..columns.len() {
            cells.push(Value::Nil);
        }
    }
    env.table_ty.push(match group {
        Some(g) => Ty::Code(g),
        None => Ty::Int,
    });
    let conv = |b: Option<(AstBeyond, kriegsspiel_dsl::ast::Span)>| match b {
        Some((AstBeyond::Clamp, _)) => Beyond::Clamp,
        _ => Beyond::Error,
    };
    TableDef {
        name: t.name.name.clone(),
        para: env.para(para),
        columns,
        rows,
        cells,
        beyond_rows: conv(t.beyond_rows),
        beyond_columns: conv(t.beyond_columns),
        odds,
    }
}
