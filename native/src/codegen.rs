//! Bytecode to Rust: one Rust function per compiled function.
//!
//! A function's instructions are cut into basic blocks (a block starts at instruction 0,
//! at every jump target and after every branch), and the blocks are written as
//! structured Rust: loops for back edges, labelled blocks for blocks reached from two
//! or more places, everything else nested where it is reached ([`crate::cfg`]; a graph
//! that were not reducible would fall back to a `match` on a program counter inside a
//! `loop`). Within a block, arithmetic, comparisons, moves, constants, branches and returns are written out
//! in Rust; the hot instructions known at build time (loops, fields, classes, markers,
//! fused tests, built-ins) call the interpreter's own method for each with their operands
//! as constants; a call of another rulebook function is a direct Rust call when it opens
//! no modifier trace; every other instruction goes through `Machine::native_op`, the
//! interpreter's `step`. Budget: each straight run of written-out instructions is charged
//! at once before it starts, every other instruction charges its own step; see
//! `kriegsspiel_runtime::native`.

use crate::cfg::Cfg;
use kriegsspiel_runtime::op::{Cmp, Field, Op};
use kriegsspiel_runtime::program::{FnKind, Function, Program};
use kriegsspiel_runtime::value::Value;
use std::collections::BTreeSet;
use std::fmt::Write;

/// The generated module: `pub static CODE: Code`, implementing `NativeCode`.
pub fn generate(prog: &Program, rulebook: &str) -> String {
    let hash = kriegsspiel_runtime::native::program_hash(prog);
    let texts = kriegsspiel_runtime::disasm::instruction_texts(prog);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//! {} compiled to Rust by `kriegsspiel build` from {}.",
        prog.title,
        comment(rulebook)
    );
    let _ = writeln!(
        out,
        "//! Generated: do not edit; rebuild instead. Each function is a function of the rulebook's\n\
         //! `.ks` source, its instructions (as `kriegsspiel disasm` prints them) in comments beside\n\
         //! the Rust they became, and the paragraph each comes from.\n"
    );
    out.push_str(PRELUDE);
    let _ = writeln!(out, "\n/// {} functions of program {hash:#018x}.", prog.functions.len());
    out.push_str("pub struct Code;\n\npub static CODE: Code = Code;\n\n");
    out.push_str("impl NativeCode for Code {\n");
    let _ = writeln!(out, "    fn program_hash(&self) -> u64 {{\n        {hash:#018x}\n    }}\n");
    out.push_str("    fn run(&self, m: &mut Machine<'_>, f: FnId, base: usize) -> Option<Exec<Value>> {\n");
    out.push_str("        Some(match f {\n");
    for (i, func) in prog.functions.iter().enumerate() {
        let _ = writeln!(out, "            {i} => {}(m, base),", fn_name(i, func));
    }
    out.push_str("            _ => return None,\n        })\n    }\n}\n");
    for (i, func) in prog.functions.iter().enumerate() {
        out.push('\n');
        function(&mut out, prog, i, func, &texts[i]);
    }
    out
}

/// What every generated module starts with.
const PRELUDE: &str = r#"#![allow(unused_mut, unused_variables, unused_macros, unused_imports, unreachable_code, unused_labels, unreachable_patterns, clippy::all)]

use kriegsspiel_runtime::native::ops::{self, Cmp};
use kriegsspiel_runtime::native::{Builtin, Exec, Field, Machine, NativeCode, Static, Test};
use kriegsspiel_runtime::program::FnId;
use kriegsspiel_runtime::Value;

/// The value, or the interpreter's error for instruction `$at`, giving back the `$rest`
/// steps charged for the written-out instructions after it.
macro_rules! tri {
    ($m:ident, $b:ident, $at:expr, $rest:expr, $e:expr) => {
        match $e {
            Some(v) => v,
            None => return Err($m.native_fail(F, $at, $b, $rest)),
        }
    };
}

/// Charge a straight run of `$n` written-out instructions, or hand over to the
/// interpreter at `$at` (the same call `$c`, last paragraph `$lp`, for rules fired).
macro_rules! charge {
    ($m:ident, $b:ident, $c:ident, $lp:ident, $at:expr, $n:expr) => {
        if !$m.native_charge($n) {
            return $m.native_resume(F, $b, $at, $c, $lp);
        }
    };
}

/// Instruction `$at` as the interpreter runs it (it charges its own step).
macro_rules! op {
    ($m:ident, $b:ident, $at:expr) => {
        if !$m.native_op(F, $at, $b) {
            return $m.native_stop();
        }
    };
}

/// An instruction's value, or the function stops.
macro_rules! get {
    ($m:ident, $e:expr) => {
        match $e {
            Some(v) => v,
            None => return $m.native_stop(),
        }
    };
}
"#;

fn comment(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// A Rust identifier for function `i`.
fn fn_name(i: usize, func: &Function) -> String {
    let mut s = format!("f{i}_");
    for c in func.name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('_') {
            s.push('_');
        }
    }
    s.trim_end_matches('_').to_string()
}

/// Where an instruction may send control: its jump target.
fn target(op: &Op) -> Option<u32> {
    Some(match *op {
        Op::Jump { to }
        | Op::JumpIf { to, .. }
        | Op::JumpIfNot { to, .. }
        | Op::BrCmp { to, .. }
        | Op::BrCmpK { to, .. }
        | Op::BrStatic { to, .. }
        | Op::BrTest { to, .. }
        | Op::BrClass { to, .. }
        | Op::BrMarker { to, .. } => to,
        Op::IterNext { done, .. }
        | Op::IterAt { done, .. }
        | Op::IterStart { done, .. }
        | Op::IterAtStart { done, .. } => done,
        Op::IterNextBack { body, .. } | Op::IterAtBack { body, .. } => body,
        _ => return None,
    })
}

/// Written out in Rust (everything else goes through `native_step`).
fn native(op: &Op) -> bool {
    matches!(
        op,
        Op::Const { .. }
            | Op::Mov { .. }
            | Op::Add { .. }
            | Op::Sub { .. }
            | Op::AddK { .. }
            | Op::Mul { .. }
            | Op::Div { .. }
            | Op::Rem { .. }
            | Op::Eq { .. }
            | Op::Ne { .. }
            | Op::Lt { .. }
            | Op::Le { .. }
            | Op::Gt { .. }
            | Op::Ge { .. }
            | Op::Neg { .. }
            | Op::Not { .. }
            | Op::Jump { .. }
            | Op::JumpIf { .. }
            | Op::JumpIfNot { .. }
            | Op::BrCmp { .. }
            | Op::BrCmpK { .. }
            | Op::Ret { .. }
            | Op::RetNil
    )
}

/// Ends its block: control may go elsewhere than the next instruction.
fn ends_block(op: &Op) -> bool {
    target(op).is_some() || matches!(op, Op::Ret { .. } | Op::RetNil)
}

fn kind(k: FnKind) -> String {
    format!("{k:?}").to_lowercase()
}

fn function(out: &mut String, prog: &Program, i: usize, func: &Function, texts: &[String]) {
    let code = &func.code;
    let n = code.len();
    let params: Vec<String> = (0..func.params).map(|r| format!("r{r}")).collect();
    let _ = writeln!(
        out,
        "/// `{}({})`: {}, §{}; {} instructions, {} registers.",
        comment(&func.name),
        params.join(", "),
        kind(func.kind),
        comment(prog.para(func.para)),
        n,
        func.slots
    );
    let _ = writeln!(out, "fn {}(m: &mut Machine<'_>, b: usize) -> Exec<Value> {{", fn_name(i, func));
    let _ = writeln!(out, "    const F: FnId = {i};");
    // This call's id for rules fired (what the interpreter counts per call).
    let _ = writeln!(out, "    let c = m.native_call();\n    let mut lp = u16::MAX;");
    if n == 0 {
        out.push_str("    Ok(Value::Nil)\n}\n");
        return;
    }
    // Block leaders.
    let mut leaders = BTreeSet::new();
    leaders.insert(0usize);
    for (at, op) in code.iter().enumerate() {
        if let Some(t) = target(op) {
            leaders.insert(t as usize);
        }
        if ends_block(op) {
            leaders.insert(at + 1);
        }
    }
    let starts: Vec<usize> = leaders.iter().copied().filter(|&s| s < n).collect();
    let ends: Vec<usize> = (0..starts.len()).map(|bi| starts.get(bi + 1).copied().unwrap_or(n)).collect();
    let cfg = Cfg::new(n, starts, |bi| successors(code, ends[bi]));
    let mut g = Gen { prog, func, texts, structured: cfg.reducible, cfg, ends, last_para: u16::MAX };
    if g.structured {
        let body = g.tree(0, 0);
        out.push_str(&body);
        out.push_str("}\n");
    } else {
        // Not reducible (never from compiled `.ks`): a `match` on a program counter.
        out.push_str("    let mut pc: usize = 0;\n    loop {\n        match pc {\n");
        for bi in 0..g.cfg.starts.len() {
            let _ = writeln!(out, "            {} => {{", g.cfg.starts[bi]);
            let body = g.block(bi, 3);
            out.push_str(&body);
            out.push_str("            }\n");
        }
        out.push_str("            _ => return Ok(Value::Nil),\n        }\n    }\n}\n");
    }
}

/// Where control may go after the block ending before `end`, as instruction indices.
fn successors(code: &[Op], end: usize) -> Vec<usize> {
    let last = &code[end - 1];
    match (last, target(last)) {
        (Op::Ret { .. } | Op::RetNil, _) => Vec::new(),
        (Op::Jump { to }, _) => vec![*to as usize],
        (_, Some(to)) => vec![to as usize, end],
        (_, None) => vec![end],
    }
}

/// Indentation for nesting `depth` (deep nests stop indenting further).
fn indent(depth: usize) -> String {
    "    ".repeat(depth.min(6) + 1)
}

/// One function's translation.
struct Gen<'a> {
    prog: &'a Program,
    func: &'a Function,
    texts: &'a [String],
    cfg: Cfg,
    /// Each block's end (the next block's start).
    ends: Vec<usize>,
    /// Structured control flow; otherwise a `match` on `pc`.
    structured: bool,
    /// The paragraph of the last instruction written (for the `// §` comments).
    last_para: u16,
}

impl Gen<'_> {
    /// Block `x` with the blocks it dominates (Ramsey's `doTree`): in a `loop` when it
    /// heads one.
    fn tree(&mut self, x: usize, depth: usize) -> String {
        let ys = self.cfg.merge_children(x);
        if self.cfg.loop_header[x] {
            let ind = indent(depth);
            let body = self.within(x, &ys, depth + 1);
            format!("{ind}'l{}: loop {{\n{body}{ind}}}\n", self.cfg.starts[x])
        } else {
            self.within(x, &ys, depth)
        }
    }

    /// Block `x` inside labelled blocks for its merge children `ys` (latest first), each
    /// child's tree after its block (`nodeWithin`).
    fn within(&mut self, x: usize, ys: &[usize], depth: usize) -> String {
        match ys.split_first() {
            None => self.block(x, depth),
            Some((&y, rest)) => {
                let ind = indent(depth);
                let inner = self.within(x, rest, depth + 1);
                let after = self.tree(y, depth);
                format!("{ind}'b{}: {{\n{inner}{ind}}}\n{after}", self.cfg.starts[y])
            }
        }
    }

    /// Statements that send control from block `from` to instruction `to`.
    fn goto(&mut self, from: usize, to: usize, depth: usize) -> String {
        let ind = indent(depth);
        if !self.structured {
            return format!("{ind}pc = {to};\n{ind}continue;\n");
        }
        let n = self.func.code.len();
        if to >= n {
            return format!("{ind}return Ok(Value::Nil);\n");
        }
        let Ok(y) = self.cfg.starts.binary_search(&to) else {
            // Not a block start: cannot happen (every target is a leader).
            return format!("{ind}return Err(m.native_fail(F, {to}, b, 0));\n");
        };
        if self.cfg.is_back_edge(from, y) {
            format!("{ind}continue 'l{to};\n")
        } else if self.cfg.merge[y] {
            format!("{ind}break 'b{to};\n")
        } else {
            self.tree(y, depth)
        }
    }

    /// Block `bi`'s instructions, ending with where control goes.
    fn block(&mut self, bi: usize, depth: usize) -> String {
        let (prog, func, texts) = (self.prog, self.func, self.texts);
        let code = &func.code;
        let ind = indent(depth);
        let (start, end) = (self.cfg.starts[bi], self.ends[bi]);
        let mut out = String::new();
        let mut at = start;
        let mut fired_para = u16::MAX;
        let mut open_seg_end = start; // written-out instructions before this are charged
        while at < end {
            if native(&code[at]) && at >= open_seg_end {
                // A straight run of written-out instructions, charged at once.
                let mut e = at;
                while e < end && native(&code[e]) {
                    e += 1;
                }
                let _ = writeln!(out, "{ind}charge!(m, b, c, lp, {at}, {});", e - at);
                open_seg_end = e;
            }
            let para = func.paras.get(at).copied().unwrap_or(func.para);
            if para != self.last_para {
                let _ = writeln!(out, "{ind}// §{}", comment(prog.para(para)));
                self.last_para = para;
            }
            // Rules fired: the paragraph counted before its first instruction in the
            // block runs, as the interpreter counts it (once per call).
            if para != fired_para {
                let _ = writeln!(out, "{ind}m.native_fired(c, &mut lp, {para});");
                fired_para = para;
            }
            let rest = open_seg_end.saturating_sub(at + 1) as u64;
            let text = texts.get(at).map(|t| comment(t)).unwrap_or_default();
            let _ = writeln!(out, "{ind}// {at}: {text}");
            instruction(self, &mut out, bi, depth, at, rest, &code[at]);
            at += 1;
        }
        let last = &code[end - 1];
        let decided = target(last).is_some() && !native(last);
        if !matches!(last, Op::Jump { .. } | Op::Ret { .. } | Op::RetNil) && !decided {
            let g = self.goto(bi, end, depth);
            out.push_str(&g);
        }
        out
    }
}

fn value(v: Value) -> String {
    format!("Value::{v:?}")
}

fn cmp(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "Cmp::Eq",
        Cmp::Ne => "Cmp::Ne",
        Cmp::Lt => "Cmp::Lt",
        Cmp::Le => "Cmp::Le",
        Cmp::Gt => "Cmp::Gt",
        Cmp::Ge => "Cmp::Ge",
    }
}

/// Instruction `op` (at `at` of block `bi`, nested `depth` deep), its jumps through
/// [`Gen::goto`].
fn instruction(g: &mut Gen, out: &mut String, bi: usize, depth: usize, at: usize, rest: u64, op: &Op) {
    let prog = g.prog;
    let ind = &indent(depth);
    let get = |r: u16| format!("m.native_get(b, {r})");
    let bin = |out: &mut String, f: &str, dst: u16, a: u16, x: u16| {
        let _ = writeln!(
            out,
            "{ind}let v = tri!(m, b, {at}, {rest}, ops::{f}({}, {}));\n{ind}m.native_set(b, {dst}, v);",
            get(a),
            get(x)
        );
    };
    match *op {
        Op::Const { dst, k } => {
            if let Some(&v) = prog.consts.get(k as usize) {
                let _ = writeln!(out, "{ind}m.native_set(b, {dst}, {});", value(v));
            }
        }
        Op::Mov { dst, src } => {
            let _ = writeln!(out, "{ind}m.native_set(b, {dst}, {});", get(src));
        }
        Op::Add { dst, a, b } => bin(out, "add", dst, a, b),
        Op::Sub { dst, a, b } => bin(out, "sub", dst, a, b),
        Op::Mul { dst, a, b } => bin(out, "mul", dst, a, b),
        Op::Div { dst, a, b } => bin(out, "div", dst, a, b),
        Op::Rem { dst, a, b } => bin(out, "rem", dst, a, b),
        Op::Lt { dst, a, b } => bin(out, "lt", dst, a, b),
        Op::Le { dst, a, b } => bin(out, "le", dst, a, b),
        Op::Gt { dst, a, b } => bin(out, "gt", dst, a, b),
        Op::Ge { dst, a, b } => bin(out, "ge", dst, a, b),
        Op::AddK { dst, a, k } => {
            let _ = writeln!(
                out,
                "{ind}let v = tri!(m, b, {at}, {rest}, ops::add_k({}, {k}));\n{ind}m.native_set(b, {dst}, v);",
                get(a)
            );
        }
        Op::Eq { dst, a, b } | Op::Ne { dst, a, b } => {
            let eq = if matches!(op, Op::Eq { .. }) { "==" } else { "!=" };
            let _ = writeln!(
                out,
                "{ind}let v = Value::Bool({} {eq} {});\n{ind}m.native_set(b, {dst}, v);",
                get(a),
                get(b)
            );
        }
        Op::Neg { dst, a } | Op::Not { dst, a } => {
            let f = if matches!(op, Op::Neg { .. }) { "neg" } else { "not" };
            let _ = writeln!(
                out,
                "{ind}let v = tri!(m, b, {at}, {rest}, ops::{f}({}));\n{ind}m.native_set(b, {dst}, v);",
                get(a)
            );
        }
        Op::Jump { to } => out.push_str(&g.goto(bi, to as usize, depth)),
        Op::JumpIf { cond, to } | Op::JumpIfNot { cond, to } => {
            let not = if matches!(op, Op::JumpIf { .. }) { "" } else { "!" };
            let test = format!("{not}tri!(m, b, {at}, {rest}, ops::truth({}))", get(cond));
            cond_jump(g, out, bi, depth, &test, at, to as usize);
        }
        Op::BrCmp { cmp: c, a, b, to, when } => {
            let not = if when { "" } else { "!" };
            let test =
                format!("{not}tri!(m, b, {at}, {rest}, ops::test({}, {}, {}))", cmp(c), get(a), get(b));
            cond_jump(g, out, bi, depth, &test, at, to as usize);
        }
        Op::BrCmpK { cmp: c, a, k, to, when } => {
            let not = if when { "" } else { "!" };
            let y = prog.consts.get(k as usize).copied().unwrap_or(Value::Nil);
            let test =
                format!("{not}tri!(m, b, {at}, {rest}, ops::test({}, {}, {}))", cmp(c), get(a), value(y));
            cond_jump(g, out, bi, depth, &test, at, to as usize);
        }
        Op::Ret { src } => {
            let _ = writeln!(out, "{ind}return Ok({});", get(src));
        }
        Op::RetNil => {
            let _ = writeln!(out, "{ind}return Ok(Value::Nil);");
        }
        // The hot instructions through the interpreter's method for each.
        Op::IterNext { list: l, idx: x, dst: d, done: to }
        | Op::IterStart { list: l, idx: x, dst: d, done: to }
        | Op::IterAt { hex: l, idx: x, dst: d, done: to }
        | Op::IterAtStart { hex: l, idx: x, dst: d, done: to } => {
            let f = if matches!(op, Op::IterNext { .. } | Op::IterStart { .. }) { "iter" } else { "iter_at" };
            let start = matches!(op, Op::IterStart { .. } | Op::IterAtStart { .. });
            let call = format!("m.native_{f}(F, {at}, b, ({l}, {x}, {d}), {start})");
            branch_on(g, out, bi, depth, &call, at + 1, to as usize);
        }
        Op::IterNextBack { list: l, idx: x, dst: d, body }
        | Op::IterAtBack { hex: l, idx: x, dst: d, body } => {
            let f = if matches!(op, Op::IterNextBack { .. }) { "iter" } else { "iter_at" };
            let call = format!("m.native_{f}(F, {at}, b, ({l}, {x}, {d}), false)");
            branch_on(g, out, bi, depth, &call, body as usize, at + 1);
        }
        Op::BrTest { test, x, y, k, to, when } => {
            let call = format!("m.native_test(F, {at}, b, (Test::{test:?}, {x}, {y}, {k}))");
            branch_when(g, out, bi, depth, &call, when, to as usize, at + 1);
        }
        Op::BrStatic { what, a, b: v, to, when } => {
            let call = format!("m.native_static(F, {at}, Static::{what:?}, {a}, {v})");
            branch_when(g, out, bi, depth, &call, when, to as usize, at + 1);
        }
        Op::BrClass { u, class, to, when } => {
            let call = format!("m.native_is_class(F, {at}, b, {u}, {class})");
            branch_when(g, out, bi, depth, &call, when, to as usize, at + 1);
        }
        Op::BrMarker { obj, marker, to, when } => {
            let call = format!("m.native_has_marker(F, {at}, b, {obj}, {marker})");
            branch_when(g, out, bi, depth, &call, when, to as usize, at + 1);
        }
        Op::IsClass { dst, u, class } => {
            let _ = writeln!(
                out,
                "{ind}let v = get!(m, m.native_is_class(F, {at}, b, {u}, {class}));\n{ind}m.native_set(b, {dst}, Value::Bool(v));"
            );
        }
        Op::HasMarker { dst, obj, marker } => {
            let _ = writeln!(
                out,
                "{ind}let v = get!(m, m.native_has_marker(F, {at}, b, {obj}, {marker}));\n{ind}m.native_set(b, {dst}, Value::Bool(v));"
            );
        }
        Op::Field { dst, obj, field: Field::Side } => {
            let _ = writeln!(
                out,
                "{ind}let v = get!(m, m.native_side(F, {at}, b, {obj}));\n{ind}m.native_set(b, {dst}, v);"
            );
        }
        Op::Field {
            dst,
            obj,
            field: field @ (Field::Rating(_) | Field::Hex | Field::Steps | Field::OnMap),
        } => {
            let _ = writeln!(
                out,
                "{ind}let v = get!(m, m.native_unit_field(F, {at}, b, {obj}, Field::{field:?}));\n{ind}m.native_set(b, {dst}, v);"
            );
        }
        Op::Field { dst, obj, field: field @ (Field::Terrain | Field::TerrainAttr(_)) } => {
            let _ = writeln!(
                out,
                "{ind}if !m.native_terrain_field(F, {at}, b, ({obj}, Field::{field:?}, {dst})) {{\n{ind}    return m.native_stop();\n{ind}}}"
            );
        }
        // A direct call of another generated function when `invoke` would do no more
        // than enter and leave the frame (no modifier trace to open); else `invoke`.
        Op::Call { f: g, args, argc, dst, trace } => {
            let invoke = format!("get!(m, m.native_invoke(F, {at}, b, ({g}, {args}, {argc}, {trace})))");
            match prog.functions.get(g as usize) {
                Some(callee) => {
                    let name = fn_name(g as usize, callee);
                    let mods = callee.modifiers.is_some();
                    let _ = writeln!(
                        out,
                        "{ind}let v = if m.native_plain_call({trace}, {mods}) {{\n\
                         {ind}    let k = get!(m, m.native_enter(F, {at}, b, ({g}, {args}, {argc})));\n\
                         {ind}    let r = {name}(m, k.base());\n\
                         {ind}    get!(m, m.native_leave(k, r))\n\
                         {ind}}} else {{\n\
                         {ind}    {invoke}\n\
                         {ind}}};\n\
                         {ind}m.native_set(b, {dst}, v);"
                    );
                }
                None => {
                    let _ = writeln!(out, "{ind}let v = {invoke};\n{ind}m.native_set(b, {dst}, v);");
                }
            }
        }
        Op::Builtin { b: bi, dst, a, argc } => {
            let _ = writeln!(
                out,
                "{ind}if !m.native_builtin(F, {at}, b, (Builtin::{bi:?}, {dst}, {a:?}, {argc})) {{\n{ind}    return m.native_stop();\n{ind}}}"
            );
        }
        _ if target(op).is_some() => {
            // A branch the interpreter decides: to its target or the next instruction.
            let to = target(op).map_or(at + 1, |t| t as usize);
            let _ = writeln!(
                out,
                "{ind}match m.native_branch(F, {at}, b) {{\n{ind}    usize::MAX => return m.native_stop(),"
            );
            if to != at + 1 {
                let _ = writeln!(out, "{ind}    {to} => {{");
                out.push_str(&g.goto(bi, to, depth + 2));
                let _ = writeln!(out, "{ind}    }}");
            }
            let _ = writeln!(out, "{ind}    _ => {{");
            out.push_str(&g.goto(bi, at + 1, depth + 2));
            let _ = writeln!(out, "{ind}    }}\n{ind}}}");
        }
        _ => {
            let _ = writeln!(out, "{ind}op!(m, b, {at});");
        }
    }
}

/// A written-out conditional jump: to `to` when `test` holds, else on to the next
/// instruction (the block's end adds that jump). A jump to the next instruction still
/// evaluates its test, for its error.
fn cond_jump(g: &mut Gen, out: &mut String, bi: usize, depth: usize, test: &str, at: usize, to: usize) {
    let ind = indent(depth);
    if to == at + 1 {
        let _ = writeln!(out, "{ind}let _ = {test};");
        return;
    }
    let _ = writeln!(out, "{ind}if {test} {{");
    out.push_str(&g.goto(bi, to, depth + 1));
    let _ = writeln!(out, "{ind}}}");
}

/// A branch on an instruction's `Option<bool>`: to `yes` or `no`, or the function stops.
fn branch_on(g: &mut Gen, out: &mut String, bi: usize, depth: usize, call: &str, yes: usize, no: usize) {
    let ind = indent(depth);
    let _ = writeln!(out, "{ind}match {call} {{");
    if yes == no {
        let _ = writeln!(out, "{ind}    Some(_) => {{");
        out.push_str(&g.goto(bi, yes, depth + 2));
        let _ = writeln!(out, "{ind}    }}");
    } else {
        let _ = writeln!(out, "{ind}    Some(true) => {{");
        out.push_str(&g.goto(bi, yes, depth + 2));
        let _ = writeln!(out, "{ind}    }}\n{ind}    Some(false) => {{");
        out.push_str(&g.goto(bi, no, depth + 2));
        let _ = writeln!(out, "{ind}    }}");
    }
    let _ = writeln!(out, "{ind}    None => return m.native_stop(),\n{ind}}}");
}

/// A fused branch: to `to` when the test's value is `when`, else to `next`.
#[allow(clippy::too_many_arguments)]
fn branch_when(
    g: &mut Gen,
    out: &mut String,
    bi: usize,
    depth: usize,
    call: &str,
    when: bool,
    to: usize,
    next: usize,
) {
    let (yes, no) = if when { (to, next) } else { (next, to) };
    branch_on(g, out, bi, depth, call, yes, no);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program of one function with `code` (register 0 its condition).
    fn program(code: Vec<Op>) -> Program {
        let n = code.len();
        let f = Function {
            name: "f".into(),
            params: 1,
            slots: 2,
            code,
            paras: vec![0; n],
            spans: vec![(0, 0, 0); n],
            ..Function::default()
        };
        Program { functions: vec![f], ..Program::default() }
    }

    #[test]
    fn a_reducible_function_is_structured() {
        // 0: if r0 goto 2; 1: r1 = r0; 2: return nil. Block 2 is reached from two places.
        let p = program(vec![Op::JumpIf { cond: 0, to: 2 }, Op::Mov { dst: 1, src: 0 }, Op::RetNil]);
        let code = generate(&p, "inline");
        assert!(code.contains("'b2: {") && code.contains("break 'b2;"), "{code}");
        assert!(!code.contains("match pc"), "{code}");
        // A loop: 0: r1 = r0; 1: if r0 goto 0; 2: return nil.
        let p = program(vec![Op::Mov { dst: 1, src: 0 }, Op::JumpIf { cond: 0, to: 0 }, Op::RetNil]);
        let code = generate(&p, "inline");
        assert!(code.contains("'l0: loop {") && code.contains("continue 'l0;"), "{code}");
    }

    #[test]
    fn an_irreducible_function_keeps_the_program_counter() {
        // A loop entered at two places: 0: if r0 goto 2; 1: r1 = r0; 2: if r0 goto 1;
        // 3: return nil.
        let p = program(vec![
            Op::JumpIf { cond: 0, to: 2 },
            Op::Mov { dst: 1, src: 0 },
            Op::JumpIf { cond: 0, to: 1 },
            Op::RetNil,
        ]);
        let code = generate(&p, "inline");
        assert!(code.contains("match pc {") && code.contains("pc = 1;"), "{code}");
        assert!(!code.contains("'l1: loop"), "{code}");
    }
}
