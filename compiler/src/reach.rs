//! Rows no roll reaches (W0008): for every table, the union of the rolls its lookups
//! can make (the interval analysis of section 12 of docs/language.md), and the rows
//! that lie outside it. A lookup whose roll has an unknown bound makes every row
//! reachable, so the lint speaks only when every lookup of the table is bounded.

use kriegsspiel_dsl::ast::{Beyond, Table};

use kriegsspiel_dsl::Diagnostic;

use crate::types::Iv;

/// What the lookups of one table can roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// No lookup reads the table (W0001 says so).
    Never,
    /// Every lookup's roll lies in this interval.
    Known(Iv),
    /// A lookup's roll has an unknown bound.
    Unknown,
}

impl Reach {
    /// Add one lookup's roll.
    pub fn join(self, iv: Iv) -> Reach {
        match (self, iv.is_known()) {
            (_, false) | (Reach::Unknown, _) => Reach::Unknown,
            (Reach::Never, true) => Reach::Known(iv),
            (Reach::Known(a), true) => Reach::Known(a.union(iv)),
        }
    }
}

/// W0008 for a table with rows that none of its lookups can roll.
pub fn lint(table: &Table, reach: Reach, para: &str, diags: &mut Vec<Diagnostic>) {
    let Reach::Known(iv) = reach else { return };
    let (Some(first), Some(last)) = (table.rows.first(), table.rows.last()) else { return };
    // A clamped table reads its first (last) row for rolls below (above) it.
    let clamp = matches!(table.beyond_rows, Some((Beyond::Clamp, _)));
    let (lo, hi) =
        if clamp { (iv.lo.clamp(first.lo, last.hi), iv.hi.clamp(first.lo, last.hi)) } else { (iv.lo, iv.hi) };
    let dead: Vec<_> = table.rows.iter().filter(|r| r.hi < lo || r.lo > hi).collect();
    let Some(d0) = dead.first() else { return };
    let key = |r: &kriegsspiel_dsl::ast::TableRow| {
        if r.lo == r.hi {
            r.lo.to_string()
        } else {
            format!("{}-{}", r.lo, r.hi)
        }
    };
    let keys: Vec<String> = dead.iter().map(|r| key(r)).collect();
    let m = format!(
        "no lookup of table `{}` reaches row{} {}: every roll it is read with lies in {}",
        table.name.name,
        if dead.len() == 1 { "" } else { "s" },
        keys.join(", "),
        Iv::new(lo, hi)
    );
    let mut d = Diagnostic::warning("W0008", d0.key_span, m)
        .with_note(
            "either the dice and modifiers never make these rolls (dead rows), or a modifier is missing",
        )
        .with_paragraph(para.to_string());
    for r in dead.iter().skip(1) {
        d = d.with_label(r.key_span, "also unreachable");
    }
    diags.push(d);
}
