//! Human-readable listing of a program's bytecode (`kriegsspiel disasm`).
//!
//! Each instruction is printed as what it does, with registers as `rN`, constants with
//! their value, and tables, functions, markers, tracks, cups and ratings by name:
//! `r8 = r6.terrain.defense`, `if not r10 goto 12`, `r7 = call move_cost(r3, r4)`.
//! An instruction this file does not know yet is printed from its serialised form, so a
//! new instruction is never missing from a listing.

use crate::board::Board;
use crate::op::{Cmp, Field, Op, Reg, Static, Test, NO_REG};
use crate::program::Program;
use crate::value::Value;
use std::fmt::Write;

/// Every function with its instructions, each annotated with its paragraph.
pub fn disassemble(p: &Program) -> String {
    let board = Board::new(&p.map);
    let d = Names { p, board: &board };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "; {} — {} functions, {} constants, {} tables",
        p.title,
        p.functions.len(),
        p.consts.len(),
        p.tables.len()
    );
    for (i, f) in p.functions.iter().enumerate() {
        let params: Vec<String> = (0..f.params).map(|r| format!("r{r}")).collect();
        let _ = writeln!(
            out,
            "\nfn#{i} {}({}) — {:?}, {} registers, §{}",
            f.name,
            params.join(", "),
            f.kind,
            f.slots,
            p.para(f.para)
        );
        let mut last_para = u16::MAX;
        for (pc, op) in f.code.iter().enumerate() {
            let para = f.paras.get(pc).copied().unwrap_or(f.para);
            let text = d.op(op);
            if para != last_para {
                let _ = writeln!(out, "  {pc:4}  {text:<48}  ; §{}", p.para(para));
            } else {
                let _ = writeln!(out, "  {pc:4}  {text}");
            }
            last_para = para;
        }
    }
    out
}

/// Each function's instructions as `disasm` prints them (the native back end puts
/// them beside the Rust they became).
pub fn instruction_texts(p: &Program) -> Vec<Vec<String>> {
    let board = Board::new(&p.map);
    let d = Names { p, board: &board };
    p.functions.iter().map(|f| f.code.iter().map(|op| d.op(op)).collect()).collect()
}

/// Names of a program's parts, for operands.
struct Names<'a> {
    p: &'a Program,
    board: &'a Board,
}

fn r(x: Reg) -> String {
    if x == NO_REG {
        "_".into()
    } else {
        format!("r{x}")
    }
}

fn regs(first: Reg, n: usize) -> String {
    (0..n).map(|i| r(first.saturating_add(i as Reg))).collect::<Vec<_>>().join(", ")
}

fn cmp(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "==",
        Cmp::Ne => "!=",
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        Cmp::Ge => ">=",
    }
}

/// `if` or `if not`, for branches taken when the test is `when`.
fn iff(when: bool) -> &'static str {
    if when {
        "if"
    } else {
        "if not"
    }
}

impl Names<'_> {
    fn value(&self, v: Value) -> String {
        let p = self.p;
        let name = |s: Option<&String>| s.cloned().unwrap_or_else(|| "?".into());
        match v {
            Value::Nil => "nothing".into(),
            Value::Int(i) => i.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Side(s) => name(p.sides.get(s as usize)),
            Value::Unit(u) => {
                format!("{:?}", p.counters.get(u as usize).map(|c| c.name.as_str()).unwrap_or("?"))
            }
            Value::Hex(h) => format!("hex {}", self.board.label(h)),
            Value::Sym(s) => name(p.symbols.get(s as usize).map(|x| &x.name)),
            Value::Terrain(t) => name(p.terrains.get(t as usize).map(|x| &x.name)),
            Value::UnitType(t) => name(p.unit_types.get(t as usize).map(|x| &x.name)),
            Value::List(_) => "[list]".into(),
        }
    }

    fn konst(&self, k: u32) -> String {
        match self.p.consts.get(k as usize) {
            Some(&v) => self.value(v),
            None => format!("const#{k}?"),
        }
    }

    fn func(&self, f: u32) -> String {
        self.p.functions.get(f as usize).map(|x| x.name.clone()).unwrap_or_else(|| format!("fn#{f}?"))
    }

    fn string(&self, s: u32) -> String {
        format!("{:?}", self.p.strings.get(s as usize).map(|x| x.as_str()).unwrap_or("?"))
    }

    fn marker(&self, m: u16) -> String {
        self.p.markers.get(m as usize).map(|x| x.name.clone()).unwrap_or_else(|| format!("marker#{m}?"))
    }

    fn track(&self, t: u16) -> String {
        self.p.tracks.get(t as usize).map(|x| x.name.clone()).unwrap_or_else(|| format!("track#{t}?"))
    }

    fn cup(&self, c: u16) -> String {
        self.p.cups.get(c as usize).map(|x| x.name.clone()).unwrap_or_else(|| format!("cup#{c}?"))
    }

    fn field(&self, f: Field) -> String {
        let p = self.p;
        match f {
            Field::Rating(i) => {
                p.ratings.get(i as usize).map(|x| x.name.clone()).unwrap_or_else(|| format!("rating#{i}?"))
            }
            Field::Hex => "hex".into(),
            Field::Side => "side".into(),
            Field::UnitType => "type".into(),
            Field::Steps => "steps".into(),
            Field::OnMap => "on_map".into(),
            Field::Facing => "facing".into(),
            Field::VertexFacing => "vertex_facing".into(),
            Field::Formation => "formation".into(),
            Field::Terrain => "terrain".into(),
            Field::TerrainAttr(i) => {
                p.terrain_attrs.get(i as usize).cloned().unwrap_or_else(|| format!("attr#{i}?"))
            }
            Field::AreaAttr(i) => {
                p.map.area_attrs.get(i as usize).cloned().unwrap_or_else(|| format!("attr#{i}?"))
            }
            Field::CardAttr(i) => {
                p.card_attrs.get(i as usize).cloned().unwrap_or_else(|| format!("attr#{i}?"))
            }
        }
    }

    fn class(&self, c: u8) -> String {
        self.p.classes.get(c as usize).cloned().unwrap_or_else(|| format!("class#{c}?"))
    }

    fn op(&self, op: &Op) -> String {
        let p = self.p;
        match *op {
            Op::Const { dst, k } => format!("{} = {}", r(dst), self.konst(k)),
            Op::Mov { dst, src } => format!("{} = {}", r(dst), r(src)),
            Op::Add { dst, a, b } => format!("{} = {} + {}", r(dst), r(a), r(b)),
            Op::Sub { dst, a, b } => format!("{} = {} - {}", r(dst), r(a), r(b)),
            Op::AddK { dst, a, k } => format!("{} = {} + {k}", r(dst), r(a)),
            Op::Mul { dst, a, b } => format!("{} = {} * {}", r(dst), r(a), r(b)),
            Op::Div { dst, a, b } => format!("{} = {} / {}", r(dst), r(a), r(b)),
            Op::Rem { dst, a, b } => format!("{} = {} % {}", r(dst), r(a), r(b)),
            Op::Eq { dst, a, b } => format!("{} = {} == {}", r(dst), r(a), r(b)),
            Op::Ne { dst, a, b } => format!("{} = {} != {}", r(dst), r(a), r(b)),
            Op::Lt { dst, a, b } => format!("{} = {} < {}", r(dst), r(a), r(b)),
            Op::Le { dst, a, b } => format!("{} = {} <= {}", r(dst), r(a), r(b)),
            Op::Gt { dst, a, b } => format!("{} = {} > {}", r(dst), r(a), r(b)),
            Op::Ge { dst, a, b } => format!("{} = {} >= {}", r(dst), r(a), r(b)),
            Op::Neg { dst, a } => format!("{} = -{}", r(dst), r(a)),
            Op::Not { dst, a } => format!("{} = not {}", r(dst), r(a)),
            Op::Jump { to } => format!("goto {to}"),
            Op::JumpIf { cond, to } => format!("if {} goto {to}", r(cond)),
            Op::JumpIfNot { cond, to } => format!("if not {} goto {to}", r(cond)),
            Op::BrCmp { cmp: c, when, a, b, to } => {
                format!("{} {} {} {} goto {to}", iff(when), r(a), cmp(c), r(b))
            }
            Op::BrCmpK { cmp: c, when, a, k, to } => {
                format!("{} {} {} {} goto {to}", iff(when), r(a), cmp(c), self.konst(k as u32))
            }
            Op::BrStatic { what, when, a, b, to } => {
                let test = match what {
                    Static::Flag => {
                        format!("flag({})", p.flags.get(a as usize).map(|s| s.as_str()).unwrap_or("?"))
                    }
                    Static::Optional => {
                        format!(
                            "optional({})",
                            p.options.get(a as usize).map(|o| o.name.as_str()).unwrap_or("?")
                        )
                    }
                    Static::Ruling => {
                        let ru = p.rulings.get(a as usize);
                        let alt = ru.and_then(|x| x.alternatives.get(b as usize)).map(|x| x.0.as_str());
                        format!(
                            "ruling({}, {})",
                            ru.map(|x| x.name.as_str()).unwrap_or("?"),
                            alt.unwrap_or("?")
                        )
                    }
                };
                format!("{} {test} goto {to}", iff(when))
            }
            Op::BrTest { test, when, x, y, k, to } => {
                let t = match test {
                    Test::Crosses => format!(
                        "crosses({}, {}, {})",
                        r(x),
                        r(y),
                        p.hexsides.get(k as usize).map(|f| f.name.as_str()).unwrap_or("?")
                    ),
                    Test::InRegion => format!("in_region({}, region#{k})", r(x)),
                    Test::OccupiedBy => format!("occupied_by({}, {})", r(x), r(y)),
                    Test::InEzoc => format!("in_ezoc({}, {})", r(x), r(y)),
                };
                format!("{} {t} goto {to}", iff(when))
            }
            Op::BrClass { when, u, class, to } => {
                format!("{} {} is {} goto {to}", iff(when), r(u), self.class(class))
            }
            Op::BrMarker { when, obj, marker, to } => {
                format!("{} {} has {} goto {to}", iff(when), r(obj), self.marker(marker))
            }
            Op::Call { dst, f, args, argc, .. } => {
                format!("{} = call {}({})", r(dst), self.func(f), regs(args, argc as usize))
            }
            Op::Builtin { dst, b, a, argc } => {
                let args: Vec<String> = a.iter().take(argc as usize).map(|&x| r(x)).collect();
                let name = format!("{b:?}");
                if dst == NO_REG {
                    format!("{}({})", snake(&name), args.join(", "))
                } else {
                    format!("{} = {}({})", r(dst), snake(&name), args.join(", "))
                }
            }
            Op::ModApplied { line, amt } if amt == NO_REG => format!("modifier line {line} applied"),
            Op::ModApplied { line, amt } => format!("modifier line {line} applied, adding {}", r(amt)),
            Op::Ret { src } => format!("return {}", r(src)),
            Op::RetNil => "return".into(),
            Op::Roll { dst, count, sides } => format!("{} = roll {count}d{sides}", r(dst)),
            Op::Lookup { dst, table, row, col, quiet } => {
                let t = p.tables.get(table as usize).map(|t| t.name.as_str()).unwrap_or("?");
                let q = if quiet { "  (not logged)" } else { "" };
                if col == NO_REG {
                    format!("{} = {t}[{}]{q}", r(dst), r(row))
                } else {
                    format!("{} = {t}[{}][{}]{q}", r(dst), r(row), r(col))
                }
            }
            Op::RollPool { dst, count, sides } => {
                format!("{} = roll {} d{sides} (each die)", r(dst), r(count))
            }
            Op::TrackGet2 { dst, track, a, b } => {
                format!("{} = track {}[{}, {}]", r(dst), self.track(track), r(a), r(b))
            }
            Op::TrackPut { track, a, b, v, add } => {
                let keys = [a, b].iter().filter(|&&x| x != NO_REG).map(|&x| r(x)).collect::<Vec<_>>();
                let at = if keys.is_empty() { String::new() } else { format!("[{}]", keys.join(", ")) };
                if add {
                    format!("adjust track {}{at} by {}", self.track(track), r(v))
                } else {
                    format!("set track {}{at} = {}", self.track(track), r(v))
                }
            }
            Op::RegainStep { u } => format!("regain a step of {}", r(u)),
            Op::Choose { dst, side, list, scores, what, or_none, secret, private } => format!(
                "{} = choose {} by {} from {}{}{}{}",
                r(dst),
                self.string(what),
                r(side),
                r(list),
                if scores == NO_REG { String::new() } else { format!(" prefer {}", r(scores)) },
                if or_none { " or none" } else { "" },
                if secret {
                    " (secret)"
                } else if private {
                    " (private)"
                } else {
                    ""
                }
            ),
            Op::Reveal { value, side, what } => {
                format!("reveal {} chosen by {} ({})", r(value), r(side), self.string(what))
            }
            Op::WantsScores { dst, side, list } => {
                format!("{} = wants_scores({}, {})", r(dst), r(side), r(list))
            }
            Op::ListNew { dst } => format!("{} = []", r(dst)),
            Op::ListPush { list, v } => format!("push {} onto {}", r(v), r(list)),
            Op::IterNext { dst, list, idx, done } => {
                format!("{} = next of {} at {} else goto {done}", r(dst), r(list), r(idx))
            }
            Op::IterAt { dst, hex, idx, done } => {
                format!("{} = next unit in {} at {} else goto {done}", r(dst), r(hex), r(idx))
            }
            Op::IterStart { dst, list, idx, done } => {
                format!("{} = first of {} ({} = 1) else goto {done}", r(dst), r(list), r(idx))
            }
            Op::IterAtStart { dst, hex, idx, done } => {
                format!("{} = first unit in {} ({} = 1) else goto {done}", r(dst), r(hex), r(idx))
            }
            Op::IterNextBack { dst, list, idx, body } => {
                format!("{} = next of {} at {}, goto {body}", r(dst), r(list), r(idx))
            }
            Op::IterAtBack { dst, hex, idx, body } => {
                format!("{} = next unit in {} at {}, goto {body}", r(dst), r(hex), r(idx))
            }
            Op::Field { dst, obj, field } => format!("{} = {}.{}", r(dst), r(obj), self.field(field)),
            Op::IsClass { dst, u, class } => format!("{} = {} is {}", r(dst), r(u), self.class(class)),
            Op::HasMarker { dst, obj, marker } => {
                format!("{} = {} has {}", r(dst), r(obj), self.marker(marker))
            }
            Op::TrackGet { dst, track, side } => {
                let t = p.tracks.get(track as usize).map(|t| t.name.as_str()).unwrap_or("?");
                if side == NO_REG {
                    format!("{} = track {t}", r(dst))
                } else {
                    format!("{} = track {t}[{}]", r(dst), r(side))
                }
            }
            Op::Adjust { track, side, by } => {
                let t = p.tracks.get(track as usize).map(|t| t.name.as_str()).unwrap_or("?");
                if side == NO_REG {
                    format!("adjust track {t} by {}", r(by))
                } else {
                    format!("adjust track {t}[{}] by {}", r(side), r(by))
                }
            }
            Op::MoveUnit { u, h } => format!("move {} to {}", r(u), r(h)),
            Op::Eliminate { u } => format!("eliminate {}", r(u)),
            Op::Remove { u } => format!("remove {}", r(u)),
            Op::LoseStep { u } => format!("lose a step of {}", r(u)),
            Op::Face { u, dir, vertex } => {
                format!("face {} to {}{}", r(u), if vertex { "vertex " } else { "" }, r(dir))
            }
            Op::Form { u, f } => format!("form {} {}", r(u), r(f)),
            Op::Mark { obj, marker } => format!("mark {} with {}", r(obj), self.marker(marker)),
            Op::Unmark { obj, marker } => format!("unmark {} of {}", self.marker(marker), r(obj)),
            Op::Win { side, reason } => format!("win {} {}", r(side), self.string(reason)),
            Op::Draw { reason } => format!("draw {}", self.string(reason)),
            Op::Log { fmt, args, argc } => {
                format!("log {} with ({})", self.string(fmt), regs(args, argc as usize))
            }
            Op::CupPut { cup, v } => format!("put {} into cup {}", r(v), self.cup(cup)),
            Op::CupDraw { dst, cup } => format!("{} = draw from cup {}", r(dst), self.cup(cup)),
            Op::CupEmpty { cup } => format!("empty cup {}", self.cup(cup)),
            Op::HandGet { dst, hand, side } => format!("{} = hand #{hand} of {}", r(dst), r(side)),
            Op::DrawCard { deck, hand, side } => {
                format!("draw from deck #{deck} to hand #{hand} of {}", r(side))
            }
            Op::CardOut { card, hand, side, play } => {
                format!(
                    "{} {} from hand #{hand} of {}",
                    if play { "play" } else { "discard" },
                    r(card),
                    r(side)
                )
            }
            Op::Reshuffle { deck } => format!("reshuffle deck #{deck}"),
            Op::Transfer { u, side } => format!("transfer {} to {}", r(u), r(side)),
            Op::TurnBegin { turn } => format!("begin turn {}", r(turn)),
            Op::TurnEnd => "end turn".into(),
            Op::SealedBegin => "begin sealed choices".into(),
            Op::SealedEnd => "end sealed choices (reveal)".into(),
            Op::PhaseBegin { name, side } => format!("begin phase {} of {}", self.string(name), r(side)),
            Op::PhaseEnd => "end phase".into(),
            // An instruction added since this listing was last extended.
            #[allow(unreachable_patterns)]
            _ => generic(op),
        }
    }
}

/// `UnitsAt` → `units_at`.
fn snake(name: &str) -> String {
    let mut s = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

/// An instruction from its serialised form: `snake_name field=value ...`, registers
/// where the field holds one by the instruction set's naming.
fn generic(op: &Op) -> String {
    let v = match serde_json::to_value(op) {
        Ok(v) => v,
        Err(_) => return format!("{op:?}"),
    };
    match v {
        serde_json::Value::String(name) => snake(&name),
        serde_json::Value::Object(m) => {
            let mut parts = Vec::new();
            for (name, fields) in m {
                let mut s = snake(&name);
                if let serde_json::Value::Object(fs) = fields {
                    for (f, val) in fs {
                        let is_reg = matches!(
                            f.as_str(),
                            "dst"
                                | "a"
                                | "b"
                                | "u"
                                | "side"
                                | "list"
                                | "idx"
                                | "obj"
                                | "hex"
                                | "v"
                                | "src"
                                | "cond"
                                | "x"
                                | "y"
                                | "turn"
                                | "by"
                                | "h"
                                | "args"
                                | "scores"
                                | "row"
                                | "col"
                        ) && val.as_u64().is_some();
                        match val.as_u64() {
                            Some(n) if is_reg && n == NO_REG as u64 => {
                                let _ = write!(s, " {f}=_");
                            }
                            Some(n) if is_reg => {
                                let _ = write!(s, " {f}=r{n}");
                            }
                            _ => {
                                let _ = write!(s, " {f}={val}");
                            }
                        }
                    }
                }
                parts.push(s);
            }
            parts.join(" ")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_fallback() {
        assert_eq!(snake("UnitsAt"), "units_at");
        assert_eq!(snake("Remove"), "remove");
        assert_eq!(generic(&Op::RetNil), "ret_nil");
        assert_eq!(generic(&Op::Remove { u: 3 }), "remove u=r3");
    }
}
