//! Bytecode verification: every index an instruction names exists, every register lies
//! in its frame, every jump lands inside its function. A verified program can still
//! be wrong about game rules, but it cannot make the VM index out of bounds.

use crate::op::{Op, Reg, NO_REG};
use crate::program::Program;

/// Check a program; the first problem found is returned as a message.
pub fn verify(p: &Program) -> Result<(), String> {
    for (fi, f) in p.functions.iter().enumerate() {
        let fail = |pc: usize, what: &str| Err(format!("function {} ({fi}) at {pc}: {what}", f.name));
        if f.paras.len() != f.code.len() || f.spans.len() != f.code.len() {
            return fail(0, "side tables do not match the code length");
        }
        if f.params > f.slots {
            return fail(0, "more parameters than registers");
        }
        let reg_ok = |r: Reg| r < f.slots;
        let opt_ok = |r: Reg| r == NO_REG || r < f.slots;
        let jump_ok = |t: u32| (t as usize) <= f.code.len();
        for (pc, op) in f.code.iter().enumerate() {
            let ok = match *op {
                Op::Const { dst, k } => reg_ok(dst) && (k as usize) < p.consts.len(),
                Op::Mov { dst, src } => reg_ok(dst) && reg_ok(src),
                Op::Add { dst, a, b }
                | Op::Sub { dst, a, b }
                | Op::Mul { dst, a, b }
                | Op::Div { dst, a, b }
                | Op::Rem { dst, a, b }
                | Op::Eq { dst, a, b }
                | Op::Ne { dst, a, b }
                | Op::Lt { dst, a, b }
                | Op::Le { dst, a, b }
                | Op::Gt { dst, a, b }
                | Op::Ge { dst, a, b } => reg_ok(dst) && reg_ok(a) && reg_ok(b),
                Op::Neg { dst, a } | Op::Not { dst, a } | Op::AddK { dst, a, .. } => reg_ok(dst) && reg_ok(a),
                Op::Jump { to } => jump_ok(to),
                Op::JumpIf { cond, to } | Op::JumpIfNot { cond, to } => reg_ok(cond) && jump_ok(to),
                Op::BrCmp { a, b, to, .. } => reg_ok(a) && reg_ok(b) && jump_ok(to),
                Op::BrCmpK { a, k, to, .. } => reg_ok(a) && (k as usize) < p.consts.len() && jump_ok(to),
                Op::BrTest { test, x, y, k, to, .. } => {
                    let k_ok = match test {
                        crate::op::Test::Crosses => true,
                        crate::op::Test::InRegion => (k as usize) < p.map.regions.len(),
                        crate::op::Test::OccupiedBy | crate::op::Test::InEzoc => true,
                    };
                    let y_ok = test == crate::op::Test::InRegion || reg_ok(y);
                    reg_ok(x) && y_ok && k_ok && jump_ok(to)
                }
                Op::BrStatic { what, a, to, .. } => {
                    let n = match what {
                        crate::op::Static::Flag => p.flags.len(),
                        crate::op::Static::Optional => p.options.len(),
                        crate::op::Static::Ruling => p.rulings.len(),
                    };
                    (a as usize) < n && jump_ok(to)
                }
                Op::BrClass { u, class, to, .. } => {
                    reg_ok(u) && (class as usize) < p.classes.len() && jump_ok(to)
                }
                Op::BrMarker { obj, marker, to, .. } => {
                    reg_ok(obj) && (marker as usize) < p.markers.len() && jump_ok(to)
                }
                Op::ModApplied { amt, .. } => amt == NO_REG || reg_ok(amt),
                Op::Call { f: g, args, argc, dst, .. } => {
                    let callee_ok = p.functions.get(g as usize).map(|c| c.params == argc).unwrap_or(false);
                    callee_ok
                        && reg_ok(dst)
                        && (argc == 0 || (args as usize + argc as usize) <= f.slots as usize)
                }
                Op::Builtin { dst, a, argc, .. } => {
                    opt_ok(dst) && argc <= 5 && a[..argc as usize].iter().all(|&r| reg_ok(r))
                }
                Op::Ret { src } => reg_ok(src),
                Op::RetNil | Op::PhaseEnd | Op::TurnEnd | Op::SealedBegin | Op::SealedEnd => true,
                Op::Roll { dst, count, sides } => reg_ok(dst) && count > 0 && sides > 0,
                Op::RollPool { dst, count, sides } => reg_ok(dst) && reg_ok(count) && sides > 0,
                Op::TrackGet2 { dst, track, a, b } => {
                    reg_ok(dst)
                        && reg_ok(a)
                        && reg_ok(b)
                        && p.tracks.get(track as usize).map(|t| t.second.is_some()).unwrap_or(false)
                }
                Op::TrackPut { track, a, b, v, .. } => {
                    opt_ok(a) && opt_ok(b) && reg_ok(v) && (track as usize) < p.tracks.len()
                }
                Op::RegainStep { u } => reg_ok(u),
                Op::Lookup { dst, table, col, row, .. } => {
                    reg_ok(dst) && opt_ok(col) && reg_ok(row) && (table as usize) < p.tables.len()
                }
                Op::Choose { dst, list, scores, side, what, .. } => {
                    reg_ok(dst)
                        && reg_ok(list)
                        && opt_ok(scores)
                        && reg_ok(side)
                        && (what as usize) < p.strings.len()
                }
                Op::Reveal { value, side, what } => {
                    reg_ok(value) && reg_ok(side) && (what as usize) < p.strings.len()
                }
                Op::ListNew { dst } => reg_ok(dst),
                Op::WantsScores { dst, side, list } => reg_ok(dst) && reg_ok(side) && reg_ok(list),
                Op::ListPush { list, v } => reg_ok(list) && reg_ok(v),
                Op::IterAt { hex, idx, dst, done }
                | Op::IterAtStart { hex, idx, dst, done }
                | Op::IterAtBack { hex, idx, dst, body: done } => {
                    reg_ok(hex) && reg_ok(idx) && reg_ok(dst) && jump_ok(done)
                }
                Op::IterNextBack { list, idx, dst, body } | Op::IterStart { list, idx, dst, done: body } => {
                    reg_ok(list) && reg_ok(idx) && reg_ok(dst) && jump_ok(body)
                }
                Op::IterNext { list, idx, dst, done } => {
                    reg_ok(list) && reg_ok(idx) && reg_ok(dst) && jump_ok(done)
                }
                Op::Field { dst, obj, .. } => reg_ok(dst) && reg_ok(obj),
                Op::IsClass { dst, u, class } => {
                    reg_ok(dst) && reg_ok(u) && (class as usize) < p.classes.len()
                }
                Op::HasMarker { dst, obj, marker } => {
                    reg_ok(dst) && reg_ok(obj) && (marker as usize) < p.markers.len()
                }
                Op::TrackGet { dst, track, side } => {
                    reg_ok(dst) && opt_ok(side) && (track as usize) < p.tracks.len()
                }
                Op::Adjust { track, side, by } => {
                    opt_ok(side) && reg_ok(by) && (track as usize) < p.tracks.len()
                }
                Op::MoveUnit { u, h } => reg_ok(u) && reg_ok(h),
                Op::Eliminate { u } | Op::Remove { u } | Op::LoseStep { u } => reg_ok(u),
                Op::Face { u, dir, .. } => reg_ok(u) && reg_ok(dir),
                Op::Form { u, f } => reg_ok(u) && reg_ok(f),
                Op::Mark { obj, marker } | Op::Unmark { obj, marker } => {
                    reg_ok(obj) && (marker as usize) < p.markers.len()
                }
                Op::Win { side, reason } => reg_ok(side) && (reason as usize) < p.strings.len(),
                Op::Draw { reason } => (reason as usize) < p.strings.len(),
                Op::Log { fmt, args, argc } => {
                    (fmt as usize) < p.strings.len()
                        && (argc == 0 || (args as usize + argc as usize) <= f.slots as usize)
                }
                Op::TurnBegin { turn } => reg_ok(turn),
                Op::CupPut { cup, v } => reg_ok(v) && (cup as usize) < p.cups.len(),
                Op::CupDraw { dst, cup } => reg_ok(dst) && (cup as usize) < p.cups.len(),
                Op::CupEmpty { cup } => (cup as usize) < p.cups.len(),
                Op::HandGet { dst, hand, side } => {
                    reg_ok(dst) && reg_ok(side) && (hand as usize) < p.hands.len()
                }
                Op::DrawCard { deck, hand, side } => {
                    reg_ok(side) && (hand as usize) < p.hands.len() && (deck as usize) < p.decks.len()
                }
                Op::CardOut { card, hand, side, .. } => {
                    reg_ok(card) && reg_ok(side) && (hand as usize) < p.hands.len()
                }
                Op::Reshuffle { deck } => (deck as usize) < p.decks.len(),
                Op::Transfer { u, side } => reg_ok(u) && reg_ok(side),
                Op::PhaseBegin { name, side } => (name as usize) < p.strings.len() && reg_ok(side),
            };
            if !ok {
                return fail(pc, &format!("invalid operand in {op:?}"));
            }
        }
    }
    for t in &p.tables {
        if t.cells.len() != t.rows.len() * t.columns.len()
            || t.columns.is_empty()
            || (!t.odds.is_empty() && t.odds.len() != t.columns.len())
        {
            return Err(format!("table {}: cell count does not match its shape", t.name));
        }
    }
    for inv in &p.invariants {
        let params = match inv.at {
            crate::program::CheckAt::BeforePhase(_) | crate::program::CheckAt::AfterPhase(_) => 1,
            crate::program::CheckAt::AfterMove => 3,
            crate::program::CheckAt::AfterTurn => 0,
        };
        let fn_ok = |f: u32| p.functions.get(f as usize).map(|g| g.params == params).unwrap_or(false);
        let phase_ok = match inv.at {
            crate::program::CheckAt::BeforePhase(Some(s)) | crate::program::CheckAt::AfterPhase(Some(s)) => {
                (s as usize) < p.strings.len()
            }
            _ => true,
        };
        if !fn_ok(inv.cond)
            || !inv.witnesses.map(fn_ok).unwrap_or(true)
            || !phase_ok
            || inv.paras.is_empty()
            || inv.paras.iter().any(|&q| (q as usize) >= p.paragraphs.len())
        {
            return Err(format!("invariant {}: bad function, phase or paragraph", inv.name));
        }
    }
    let n_hex = p.map.cols as usize * p.map.rows as usize;
    if p.map.terrain.len() != n_hex || p.map.sides.len() != n_hex * p.map.degree() {
        return Err("map tables do not match the grid size".into());
    }
    if p.map.is_areas() {
        let n = p.map.areas.len();
        let graph = kriegsspiel_geo::Graph::new(n as u32, &p.map.borders);
        if n != n_hex || p.map.rows != 1 || graph.map(|g| g.max_degree() > p.map.degree()).unwrap_or(true) {
            return Err("area map tables do not match its areas and borders".into());
        }
    }
    if p.map.area_values.len() != n_hex * p.map.area_attrs.len() {
        return Err("area attribute table does not match the map".into());
    }
    for c in &p.counters {
        if (c.side as usize) >= p.sides.len() || (c.unit_type as usize) >= p.unit_types.len() {
            return Err(format!("counter {} names a missing side or type", c.name));
        }
    }
    for s in &p.scenarios {
        for pl in &s.placements {
            if (pl.counter as usize) >= p.counters.len() || (pl.hex as usize) >= n_hex {
                return Err(format!("scenario {}: placement out of range", s.id));
            }
        }
        if s.order.iter().any(|&x| (x as usize) >= p.sides.len()) {
            return Err(format!("scenario {}: order names a missing side", s.id));
        }
    }
    crate::players::verify(p)
}
