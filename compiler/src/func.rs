//! Type checking and code generation of function, procedure, modifier and trigger
//! bodies, in one walk: each expression yields its register, type and Int interval.
//!
//! Registers: locals get a register for their lifetime; temporaries are allocated
//! above them and released at the end of each statement.

use crate::builtins::{BSig, P};
use crate::env::{suggest, CallableKind, Env, Global};
use crate::types::{Iv, Ty, BIG};
use kriegsspiel_dsl::ast::*;
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::op::{Builtin, Field, Op, Reg, NO_REG};
use kriegsspiel_runtime::program::{Beyond, FnKind, Function, ModLine, ModSet, TableDef};
use kriegsspiel_runtime::Value;

/// What the range analysis knows of a modifier set: the interval of its additions
/// (unknown when it multiplies) and its cap.
#[derive(Clone, Copy, Debug)]
pub struct ModRange {
    pub iv: Iv,
    pub cap: Option<(i64, i64)>,
}

/// State shared by all function compilations.
pub struct Cx<'a> {
    pub env: &'a mut Env,
    pub consts: Vec<Value>,
    pub strings: Vec<String>,
    pub diags: &'a mut Vec<Diagnostic>,
    pub builtins: Vec<BSig>,
    /// Base paragraphs referenced by statement and modifier anchors.
    pub anchors: Vec<(Anchor, String)>,
    /// Tables, for the off-table range check.
    pub tables: &'a [TableDef],
    /// Paragraph of each table (text).
    pub table_paras: Vec<String>,
    /// Modifier sets' add ranges and paragraphs: name -> (interval of the adds, paragraphs).
    pub modifier_info: std::collections::BTreeMap<String, (ModRange, Vec<String>)>,
    /// Bodies of `fn`s small enough to inline at their call sites: name -> (parameter
    /// names, body, paragraph).
    pub inline_bodies: std::collections::BTreeMap<String, std::rc::Rc<(Vec<String>, Expr, String)>>,
    /// Where each constant and string sits in `consts` and `strings` (lookups only).
    pub pools: PoolIndex,
    /// What each table's lookups can roll (W0008, rows no roll reaches).
    pub row_reach: Vec<crate::reach::Reach>,
}

/// Index of the constant and string pools, for [`Cx::konst`] and [`Cx::string`].
#[derive(Default)]
pub struct PoolIndex {
    consts: std::collections::BTreeMap<Value, u32>,
    strings: std::collections::BTreeMap<String, u32>,
}

impl<'a> Cx<'a> {
    /// The pool index of a constant, added if new. The index map makes this a lookup,
    /// not a scan of the pool (a rulebook with 100,000 constants compiled in quadratic
    /// time); an entry is trusted only if the pool still holds it there.
    pub fn konst(&mut self, v: Value) -> u32 {
        if let Some(&i) = self.pools.consts.get(&v) {
            if self.consts.get(i as usize) == Some(&v) {
                return i;
            }
        }
        self.consts.push(v);
        let i = (self.consts.len() - 1) as u32;
        self.pools.consts.insert(v, i);
        i
    }
    /// The pool index of a string, added if new (as [`Cx::konst`]).
    pub fn string(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.pools.strings.get(s) {
            if self.strings.get(i as usize).map(|c| c == s).unwrap_or(false) {
                return i;
            }
        }
        self.strings.push(s.to_string());
        let i = (self.strings.len() - 1) as u32;
        self.pools.strings.insert(s.to_string(), i);
        i
    }
}

struct Local {
    name: String,
    reg: Reg,
    ty: Ty,
    iv: Iv,
}

/// Result of compiling an expression.
#[derive(Clone, Debug)]
pub struct Out {
    pub reg: Reg,
    pub ty: Ty,
    pub iv: Iv,
    /// Paragraphs of modifier sets that fed this value (for off-table reports).
    pub mods: Vec<String>,
}

/// Compiler for one body.
pub struct FnCx<'c, 'a> {
    pub cx: &'c mut Cx<'a>,
    code: Vec<Op>,
    paras: Vec<u16>,
    spans: Vec<(u32, u32, u32)>,
    locals: Vec<Local>,
    next: u16,
    max: u16,
    para: u16,
    span: Span,
    /// `fn`: no effects, rolls or choices.
    pure: bool,
    what: &'static str,
    /// Register the next expression should leave its value in (see `expr_to`).
    hint: Option<Reg>,
    /// The hint of the expression being compiled, taken by its result register.
    out_hint: Option<Reg>,
    /// Names of the fns being inlined (no recursion); diagnostics are off inside them.
    inlining: Vec<String>,
    /// Result register reserved for an inlined call's value.
    dst_outer: Option<Reg>,
    /// Enclosing loops, innermost last: the `break` jumps to patch at the loop's exit,
    /// and the phase depth at the loop (a `break` may not leave a `phase`).
    loops: Vec<(Vec<usize>, usize)>,
    /// `phase` statements being compiled around the current statement.
    phase_depth: usize,
    /// Fields of loop-invariant locals loaded before a quantifier's loop: (the local's
    /// register, field name, the loaded value).
    field_cache: Vec<(Reg, String, Out)>,
    /// The result type of a procedure declared `-> T` (`return e;` gives it).
    returns: Option<Ty>,
    /// Code that runs as a procedure's statements (not a `fn`, a condition of a trigger
    /// or a `prefer` score): its calls log the modifier sets they evaluate.
    traced: bool,
    /// A modifier set's lines as the log shows them (see `modifiers`).
    mod_set: Option<ModSet>,
}

/// Does every path through the block end in a `return` (for procedures with a result)?
pub fn block_returns(b: &Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If { then, els: Some(e), .. } => block_returns(then) && block_returns(e),
        _ => false,
    })
}

fn err(code: &'static str, span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, span, msg)
}

impl<'c, 'a> FnCx<'c, 'a> {
    pub fn new(cx: &'c mut Cx<'a>, para: &str, span: Span, pure: bool, what: &'static str) -> Self {
        let para = cx.env.para(para);
        FnCx {
            cx,
            code: Vec::new(),
            paras: Vec::new(),
            spans: Vec::new(),
            locals: Vec::new(),
            next: 0,
            max: 0,
            para,
            span,
            pure,
            what,
            hint: None,
            out_hint: None,
            inlining: Vec::new(),
            dst_outer: None,
            loops: Vec::new(),
            phase_depth: 0,
            field_cache: Vec::new(),
            returns: None,
            traced: !pure,
            mod_set: None,
        }
    }

    /// This body is a procedure returning a value of type `t`.
    pub fn set_returns(&mut self, t: Ty) {
        self.returns = Some(t);
    }

    fn para_text(&self) -> String {
        self.cx.env.paragraphs.get(self.para as usize).cloned().unwrap_or_default()
    }

    fn error(&mut self, d: Diagnostic) {
        // An inlined body was already checked where it is declared.
        if !self.inlining.is_empty() {
            return;
        }
        let p = self.para_text();
        self.cx.diags.push(d.with_paragraph(p));
    }

    /// Declare a parameter (in order).
    pub fn param(&mut self, name: &str, ty: Ty) {
        let reg = self.temp();
        let iv = Iv::ANY;
        self.locals.push(Local { name: name.to_string(), reg, ty, iv });
    }

    fn temp(&mut self) -> Reg {
        let r = self.next;
        self.next = self.next.saturating_add(1);
        self.max = self.max.max(self.next);
        r
    }

    fn emit(&mut self, op: Op) -> usize {
        self.code.push(op);
        self.paras.push(self.para);
        self.spans.push((self.span.file, self.span.start, self.span.end));
        self.code.len() - 1
    }

    fn here(&self) -> u32 {
        self.code.len() as u32
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.code[at] {
            Op::Jump { to }
            | Op::JumpIf { to, .. }
            | Op::JumpIfNot { to, .. }
            | Op::BrCmp { to, .. }
            | Op::BrCmpK { to, .. }
            | Op::BrStatic { to, .. }
            | Op::BrTest { to, .. }
            | Op::BrClass { to, .. }
            | Op::BrMarker { to, .. } => *to = target,
            Op::IterNext { done, .. }
            | Op::IterAt { done, .. }
            | Op::IterStart { done, .. }
            | Op::IterAtStart { done, .. } => *done = target,
            Op::IterNextBack { body, .. } | Op::IterAtBack { body, .. } => *body = target,
            _ => {}
        }
    }

    fn load(&mut self, v: Value) -> Reg {
        let k = self.cx.konst(v);
        let dst = self.temp();
        self.emit(Op::Const { dst, k });
        dst
    }

    /// The result register of the expression being compiled: its hint if it has one.
    fn dst(&mut self) -> Reg {
        match self.out_hint.take() {
            Some(r) => r,
            None => self.temp(),
        }
    }

    /// Load a constant as the result of the expression being compiled.
    fn load_result(&mut self, v: Value) -> Reg {
        let k = self.cx.konst(v);
        let dst = self.dst();
        self.emit(Op::Const { dst, k });
        dst
    }

    /// Compile `e` leaving its value in `target` (a fresh register nothing else reads).
    fn expr_to(&mut self, e: &Expr, target: Reg) -> Out {
        self.hint = Some(target);
        let mut o = self.expr(e);
        if o.reg != target {
            self.emit(Op::Mov { dst: target, src: o.reg });
            o.reg = target;
        }
        o
    }

    /// Allocate `n` consecutive registers; returns the first.
    fn block_regs(&mut self, n: usize) -> Reg {
        let base = self.next;
        for _ in 0..n {
            self.temp();
        }
        base
    }

    /// Jump when `e` is false: returns the jumps to patch to the false target.
    fn jump_if_false(&mut self, e: &Expr) -> Vec<usize> {
        match &e.kind {
            ExprKind::Binary(BinOp::And, a, b) => {
                let mut j = self.jump_if_false(a);
                j.extend(self.jump_if_false(b));
                j
            }
            ExprKind::Binary(BinOp::Or, a, b) => {
                let ok = self.jump_if_true(a);
                let j = self.jump_if_false(b);
                let h = self.here();
                for x in ok {
                    self.patch(x, h);
                }
                j
            }
            ExprKind::Not(a) => self.jump_if_true(a),
            _ => self.leaf_jumps(e, false, "condition"),
        }
    }

    /// Jump when `e` is true: returns the jumps to patch to the true target.
    fn jump_if_true(&mut self, e: &Expr) -> Vec<usize> {
        match &e.kind {
            ExprKind::Binary(op @ (BinOp::Or | BinOp::And), a, b) => self.jump_if_true_chain(*op, a, b),
            ExprKind::Not(a) => self.jump_if_false(a),
            _ => self.leaf_jumps(e, true, "condition"),
        }
    }

    /// `jump_if_true` of `a or b` / `a and b` (`op`), from the operands: a value `and` /
    /// `or` branches on its chain without building (cloning) the whole expression.
    fn jump_if_true_chain(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Vec<usize> {
        if op == BinOp::Or {
            let mut j = self.jump_if_true(a);
            j.extend(self.jump_if_true(b));
            j
        } else {
            let fail = self.jump_if_false(a);
            let j = self.jump_if_true(b);
            let h = self.here();
            for x in fail {
                self.patch(x, h);
            }
            j
        }
    }

    /// Jump when `e` (not `and`, `or`, `not`) is `when`: a comparison, a class or a
    /// marker test branches in one instruction; `ctx` names a non-Bool condition.
    fn leaf_jumps(&mut self, e: &Expr, when: bool, ctx: &str) -> Vec<usize> {
        if let Some(j) = self.inline_jumps(e, when) {
            return j;
        }
        let saved = self.span;
        self.span = e.span;
        if let ExprKind::Quant { q: q @ (Quant::Any | Quant::All), var, iter, filter, body: Some(b) } =
            &e.kind
        {
            let j = self.quant_jumps(*q, var, iter, filter.as_deref(), b, when);
            self.span = saved;
            return j;
        }
        let fused = self.fused_jump(e, when);
        self.span = saved;
        if let Some(j) = fused {
            return vec![j];
        }
        let c = self.expr(e);
        self.expect_ty(&c, &Ty::Bool, e.span, ctx);
        let op = if when { Op::JumpIf { cond: c.reg, to: 0 } } else { Op::JumpIfNot { cond: c.reg, to: 0 } };
        vec![self.emit(op)]
    }

    /// Load the fields of outer locals that a quantifier's `exprs` read (`u.hex`,
    /// `u.cs`...) once, before the loop: the body is an expression, so neither the
    /// locals nor the state they are read from change inside it. Returns the cache
    /// mark to truncate to after the loop.
    fn hoist_fields(&mut self, var: &str, exprs: &[Option<&Expr>]) -> usize {
        fn collect(e: &Expr, bound: &mut Vec<String>, out: &mut Vec<(String, Ident, Span)>) {
            match &e.kind {
                ExprKind::Field(obj, f) => match &obj.kind {
                    ExprKind::Name(n) if !bound.contains(n) => out.push((n.clone(), f.clone(), obj.span)),
                    _ => collect(obj, bound, out),
                },
                ExprKind::Neg(a) | ExprKind::Not(a) | ExprKind::Is(a, _) | ExprKind::Has(a, _) => {
                    collect(a, bound, out)
                }
                ExprKind::Binary(_, a, b) => {
                    collect(a, bound, out);
                    collect(b, bound, out);
                }
                ExprKind::If(a, b, c) => {
                    collect(a, bound, out);
                    collect(b, bound, out);
                    collect(c, bound, out);
                }
                ExprKind::Call(_, args) | ExprKind::List(args) => {
                    for a in args {
                        collect(a, bound, out);
                    }
                }
                ExprKind::Index(a, b, c) => {
                    collect(a, bound, out);
                    collect(b, bound, out);
                    if let Some(c) = c {
                        collect(c, bound, out);
                    }
                }
                ExprKind::Quant { var, iter, filter, body, .. } => {
                    collect(iter, bound, out);
                    bound.push(var.name.clone());
                    for x in [filter, body].into_iter().flatten() {
                        collect(x, bound, out);
                    }
                    bound.pop();
                }
                ExprKind::Let { name, value, body } => {
                    collect(value, bound, out);
                    bound.push(name.name.clone());
                    collect(body, bound, out);
                    bound.pop();
                }
                // Anything else (choices, literals, names...): nothing hoisted inside.
                _ => {}
            }
        }
        let mark = self.field_cache.len();
        let mut found = Vec::new();
        let mut bound = vec![var.to_string()];
        for e in exprs.iter().flatten() {
            collect(e, &mut bound, &mut found);
        }
        for (n, f, span) in found {
            let Some((reg, ty)) = self.lookup_local(&n).map(|l| (l.reg, l.ty.clone())) else { continue };
            if self.field_cache.iter().any(|c| c.0 == reg && c.1 == f.name) {
                continue;
            }
            // Only fields that exist (the body reports the others where they are).
            let valid = match ty {
                Ty::Unit => {
                    matches!(f.name.as_str(), "hex" | "side" | "type" | "steps" | "on_map")
                        || self.cx.env.rating_index(&f.name).is_some()
                }
                Ty::Hex => f.name == "terrain" || self.cx.env.area_attrs.iter().any(|a| a.0 == f.name),
                _ => false,
            };
            if !valid {
                continue;
            }
            let obj = Expr { kind: ExprKind::Name(n), span };
            let o = self.field(&obj, &f);
            self.field_cache.push((reg, f.name.clone(), o));
        }
        mark
    }

    /// `any` / `all` as a condition: the loop branches straight to the targets, without
    /// the Bool of the value form.
    fn quant_jumps(
        &mut self,
        q: Quant,
        var: &Ident,
        iter: &Expr,
        filter: Option<&Expr>,
        body: &Expr,
        when: bool,
    ) -> Vec<usize> {
        let (src, elem) = self.iter_src(iter);
        // `any` leaves the loop when the body holds, `all` when it fails.
        let on = q == Quant::Any;
        let ctx = if on { "`any` body" } else { "`all` body" };
        let mut exits = Vec::new();
        let mark = self.hoist_fields(&var.name, &[filter, Some(body)]);
        self.each(src, &var.name, elem, |me, _v| {
            let skip = match filter {
                Some(f) => me.jumps_ctx(f, false, "`where` condition"),
                None => Vec::new(),
            };
            exits = me.jumps_ctx(body, on, ctx);
            me.patch_all(skip);
        });
        self.field_cache.truncate(mark);
        if when == on {
            exits
        } else {
            let done = self.emit(Op::Jump { to: 0 });
            self.patch_all(exits);
            vec![done]
        }
    }

    /// Jump when `e` is `when`, reporting a non-Bool `e` as `ctx`.
    fn jumps_ctx(&mut self, e: &Expr, when: bool, ctx: &str) -> Vec<usize> {
        match (&e.kind, when) {
            (ExprKind::Binary(BinOp::And | BinOp::Or, _, _), false) => self.jump_if_false(e),
            (ExprKind::Binary(BinOp::And | BinOp::Or, _, _), true) => self.jump_if_true(e),
            _ => self.leaf_jumps(e, when, ctx),
        }
    }

    /// A comparison, `is` or `has` as one branch instruction (the same checks as their
    /// value forms).
    fn fused_jump(&mut self, e: &Expr, when: bool) -> Option<usize> {
        use kriegsspiel_runtime::op::Cmp;
        match &e.kind {
            ExprKind::Binary(
                op @ (BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge),
                a,
                b,
            ) => {
                let x = self.expr(a);
                let before = self.code.len();
                let y = self.expr(b);
                // A literal or global name on the right is one `Const`: compare with the
                // constant in place.
                let konst = match (&b.kind, self.code.last()) {
                    (
                        ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Name(_),
                        Some(&Op::Const { dst, k }),
                    ) if self.code.len() == before + 1 && dst == y.reg && k <= u16::MAX as u32 => {
                        Some(k as u16)
                    }
                    _ => None,
                };
                let cmp = match op {
                    BinOp::Eq => Cmp::Eq,
                    BinOp::Ne => Cmp::Ne,
                    BinOp::Lt => Cmp::Lt,
                    BinOp::Le => Cmp::Le,
                    BinOp::Gt => Cmp::Gt,
                    _ => Cmp::Ge,
                };
                if matches!(cmp, Cmp::Eq | Cmp::Ne) {
                    if !x.ty.fits(&y.ty) {
                        let g = self.cx.env.group_names();
                        let m = format!("cannot compare {} with {}", x.ty.name(&g), y.ty.name(&g));
                        self.error(err("E0301", a.span.to(b.span), m));
                    }
                } else {
                    self.expect_ty(&x, &Ty::Int, a.span, "arithmetic operand");
                    self.expect_ty(&y, &Ty::Int, b.span, "arithmetic operand");
                }
                if let Some(k) = konst {
                    self.code.pop();
                    self.paras.pop();
                    self.spans.pop();
                    return Some(self.emit(Op::BrCmpK { cmp, a: x.reg, k, to: 0, when }));
                }
                Some(self.emit(Op::BrCmp { cmp, a: x.reg, b: y.reg, to: 0, when }))
            }
            // `crosses(a, b, F)`, `in_region(h, R)`, `occupied_by(h, s)`: one branch.
            ExprKind::Call(name, args)
                if !self.cx.env.callables.contains_key(&name.name)
                    && matches!(name.name.as_str(), "crosses" | "in_region" | "occupied_by" | "in_ezoc") =>
            {
                use kriegsspiel_runtime::op::Test;
                let static_arg = |list: &[String], i: usize| -> Option<usize> {
                    match &args.get(i)?.kind {
                        ExprKind::Name(n) => list.iter().position(|x| x == n),
                        _ => None,
                    }
                };
                let (test, k, regs): (Test, usize, &[Ty]) = match (name.name.as_str(), args.len()) {
                    ("crosses", 3) => {
                        (Test::Crosses, static_arg(&self.cx.env.hexsides, 2)?, &[Ty::Hex, Ty::Hex])
                    }
                    ("in_region", 2) => (Test::InRegion, static_arg(&self.cx.env.regions, 1)?, &[Ty::Hex]),
                    ("occupied_by", 2) => (Test::OccupiedBy, 0, &[Ty::Hex, Ty::Side]),
                    ("in_ezoc", 2) => (Test::InEzoc, 0, &[Ty::Hex, Ty::Side]),
                    _ => return None,
                };
                let k = u16::try_from(k).ok()?;
                if let Some(ExprKind::Name(n)) = args.get(regs.len()).map(|a| &a.kind) {
                    self.cx.env.used.insert(n.clone());
                }
                let mut r = [NO_REG; 2];
                for (i, ty) in regs.iter().enumerate() {
                    let o = self.expr(&args[i]);
                    self.expect_ty(&o, ty, args[i].span, &format!("argument {} of `{}`", i + 1, name.name));
                    r[i] = o.reg;
                }
                let y = if regs.len() > 1 { r[1] } else { r[0] };
                Some(self.emit(Op::BrTest { test, x: r[0], y, k, to: 0, when }))
            }
            // `flag(F)`, `optional(O)`, `ruling(R, A)`: fixed for the game, one branch.
            ExprKind::Call(name, args) if !self.cx.env.callables.contains_key(&name.name) => {
                use kriegsspiel_runtime::op::Static;
                let b = self.cx.builtins.iter().find(|s| s.name == name.name)?.b;
                let names: Vec<&str> = args
                    .iter()
                    .map(|a| match &a.kind {
                        ExprKind::Name(n) => Some(n.as_str()),
                        _ => None,
                    })
                    .collect::<Option<_>>()?;
                let env = &mut *self.cx.env;
                let (what, a, b) = match (b, names.as_slice()) {
                    (Builtin::Flag, [f]) => (Static::Flag, env.flags.iter().position(|x| x == f)?, 0),
                    (Builtin::Optional, [o]) => {
                        (Static::Optional, env.options.iter().position(|x| x == o)?, 0)
                    }
                    (Builtin::Ruling, [r, alt]) => {
                        let ri = env.rulings.iter().position(|x| x.0 == *r)?;
                        let ai = env.rulings[ri].1.iter().position(|x| x == alt)?;
                        (Static::Ruling, ri, ai)
                    }
                    _ => return None,
                };
                let (a, b) = (u16::try_from(a).ok()?, u16::try_from(b).ok()?);
                for n in names {
                    env.used.insert(n.to_string());
                }
                Some(self.emit(Op::BrStatic { what, a, b, to: 0, when }))
            }
            ExprKind::Is(obj, class) => {
                let c = self.cx.env.class_index(&class.name)?;
                let o = self.expr(obj);
                self.expect_ty(&o, &Ty::Unit, obj.span, "`is`");
                Some(self.emit(Op::BrClass { u: o.reg, class: c as u8, to: 0, when }))
            }
            ExprKind::Has(obj, marker) => {
                self.cx.env.marker_index(&marker.name)?;
                let o = self.expr(obj);
                let m = self.marker(marker, &o, obj.span)?;
                Some(self.emit(Op::BrMarker { obj: o.reg, marker: m, to: 0, when }))
            }
            _ => None,
        }
    }

    fn patch_all(&mut self, jumps: Vec<usize>) {
        let h = self.here();
        for j in jumps {
            self.patch(j, h);
        }
    }

    fn out(reg: Reg, ty: Ty, iv: Iv) -> Out {
        Out { reg, ty, iv, mods: Vec::new() }
    }

    fn lookup_local(&self, name: &str) -> Option<&Local> {
        self.locals.iter().rev().find(|l| l.name == name)
    }

    /// Finish: the compiled function.
    pub fn finish(mut self, name: &str, kind: FnKind, params: u16) -> Function {
        if !matches!(self.code.last(), Some(Op::Ret { .. }) | Some(Op::RetNil)) {
            self.emit(Op::RetNil);
        }
        // Jump threading: a jump to a return returns; a jump to a jump goes to its end.
        for i in 0..self.code.len() {
            if let Op::Jump { to } = self.code[i] {
                let mut t = to;
                for _ in 0..8 {
                    match self.code.get(t as usize) {
                        Some(&Op::Jump { to: next }) if next != t => t = next,
                        _ => break,
                    }
                }
                self.code[i] = match self.code.get(t as usize) {
                    Some(&r @ (Op::Ret { .. } | Op::RetNil)) => r,
                    _ => Op::Jump { to: t },
                };
            }
        }
        let para = self.para;
        let param_names = self.locals.iter().take(params as usize).map(|l| l.name.clone()).collect();
        Function {
            name: name.to_string(),
            kind,
            params,
            slots: self.max.max(params),
            code: self.code,
            paras: self.paras,
            spans: self.spans,
            para,
            param_names,
            modifiers: self.mod_set,
        }
    }

    // ------------------------------------------------------------ statements

    pub fn block(&mut self, b: &Block) {
        let depth = self.locals.len();
        let next = self.next;
        for s in &b.stmts {
            self.stmt(s);
        }
        self.locals.truncate(depth);
        self.next = next;
    }

    fn with_anchor<T>(&mut self, anchor: &Option<Anchor>, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.para;
        if let Some(a) = anchor {
            let citing = self.cx.env.paragraphs.get(saved as usize).cloned().unwrap_or_default();
            self.para = self.cx.env.para(&a.text);
            self.cx.anchors.push((a.clone(), citing));
        }
        let r = f(self);
        self.para = saved;
        r
    }

    fn effect_allowed(&mut self, span: Span, what: &str) -> bool {
        if self.pure {
            let msg = format!("{what} changes the game and is not allowed in a {}", self.what);
            self.error(err("E0304", span, msg).with_note("use a `procedure` for rules with effects"));
            return false;
        }
        true
    }

    fn expect_ty(&mut self, o: &Out, want: &Ty, span: Span, ctx: &str) {
        if !o.ty.fits(want) {
            let g = self.cx.env.group_names();
            let msg = format!("{ctx}: expected {}, found {}", want.name(&g), o.ty.name(&g));
            let mut d = err("E0301", span, msg);
            if *want == Ty::Int {
                if let Some(note) = self.int_field_hint(&o.ty) {
                    d = d.with_note(note);
                }
            }
            self.error(d);
        }
    }

    /// A terrain or a unit used where a number is wanted: name the Int fields it has
    /// (`h.terrain.defense`, `u.cs`), the usual intent.
    fn int_field_hint(&self, ty: &Ty) -> Option<String> {
        let (what, fields): (&str, Vec<&str>) = match ty {
            Ty::Terrain => (
                "a terrain",
                self.cx.env.terrain_attrs.iter().filter(|a| a.1 == Ty::Int).map(|a| a.0.as_str()).collect(),
            ),
            Ty::Unit => ("a unit", self.cx.env.ratings.iter().map(|r| r.0.as_str()).collect()),
            _ => return None,
        };
        let first = fields.first()?;
        let all: Vec<String> = fields.iter().map(|f| format!("`.{f}`")).collect();
        Some(format!(
            "help: {what} is not a number; compare one of its Int fields instead, e.g. `.{first}` (it has {})",
            all.join(", ")
        ))
    }

    fn stmt(&mut self, s: &Stmt) {
        let saved_span = self.span;
        self.span = s.span;
        let next = self.next;
        // Further anchors: the statement encodes those paragraphs too (contents, coverage).
        // The second item: the paragraph citing the anchor (its statement's first anchor,
        // else the enclosing one), for external references.
        let citing = match &s.anchor {
            Some(a) => a.text.clone(),
            None => self.cx.env.paragraphs.get(self.para as usize).cloned().unwrap_or_default(),
        };
        for a in &s.also {
            self.cx.anchors.push((a.clone(), citing.clone()));
        }
        self.with_anchor(&s.anchor, |me| me.stmt_kind(&s.kind, s.span));
        self.next = next.max(self.locals.iter().map(|l| l.reg + 1).max().unwrap_or(0));
        self.span = saved_span;
    }

    fn stmt_kind(&mut self, k: &StmtKind, span: Span) {
        match k {
            StmtKind::Sealed(body) => {
                if !self.effect_allowed(span, "`sealed`") {
                    return;
                }
                // Every choice is made in the state before the block, and no choice's
                // list or preference can read another's result: the names are bound
                // only after the last choice.
                self.emit(Op::SealedBegin);
                let mut bound = Vec::new();
                for s in &body.stmts {
                    let choice = match &s.kind {
                        StmtKind::Let { name, value } if matches!(value.kind, ExprKind::Choose { .. }) => {
                            Some((name, value))
                        }
                        _ => None,
                    };
                    let Some((name, value)) = choice else {
                        self.error(
                            err(
                                "E0301",
                                s.span,
                                "a `sealed` block holds only choices: `let x = choose ... by Side ...;`",
                            )
                            .with_note(
                                "the choices are simultaneous and secret; act on them after the block",
                            ),
                        );
                        continue;
                    };
                    let reg = self.temp();
                    let mut ty = None;
                    self.with_anchor(&s.anchor, |me| {
                        let o = me.expr_to(value, reg);
                        ty = Some((o.ty, o.iv));
                    });
                    if let Some((ty, iv)) = ty {
                        bound.push(Local { name: name.name.clone(), reg, ty, iv });
                    }
                }
                self.emit(Op::SealedEnd);
                self.locals.extend(bound);
            }
            StmtKind::Reveal { value, by, what } => {
                if !self.effect_allowed(span, "`reveal`") {
                    return;
                }
                let v = self.expr(value);
                if v.ty == Ty::Nil {
                    self.error(err("E0301", value.span, "this expression has no value to reveal"));
                }
                let value = self.temp();
                self.emit(Op::Mov { dst: value, src: v.reg });
                let s = self.expr(by);
                self.expect_ty(&s, &Ty::Side, by.span, "the side whose choice is revealed");
                let w = self.cx.string(what);
                self.emit(Op::Reveal { value, side: s.reg, what: w });
            }
            StmtKind::Let { name, value } => {
                let reg = self.temp();
                let o = self.expr_to(value, reg);
                if o.ty == Ty::Nil {
                    self.error(err("E0301", value.span, "this expression has no value to bind"));
                }
                self.locals.push(Local { name: name.name.clone(), reg, ty: o.ty, iv: o.iv });
            }
            StmtKind::Set { name, value } => {
                if self.lookup_local(&name.name).is_none() && self.cx.env.track_index(&name.name).is_some() {
                    // `set t = e;` of a plain track.
                    return self.track_put(name, &[], value, false, span);
                }
                let o = self.expr(value);
                let Some(l) = self.locals.iter().rev().find(|l| l.name == name.name) else {
                    self.error(err(
                        "E0307",
                        name.span,
                        format!("`set` of `{}`, which is not a local variable", name.name),
                    ));
                    return;
                };
                let (reg, ty) = (l.reg, l.ty.clone());
                self.expect_ty(&o, &ty, value.span, "assignment");
                if let Some(l) = self.locals.iter_mut().rev().find(|l| l.name == name.name) {
                    l.iv = l.iv.union(o.iv);
                }
                self.emit(Op::Mov { dst: reg, src: o.reg });
            }
            StmtKind::If { cond, then, els } => {
                let jf = self.jump_if_false(cond);
                self.block(then);
                if let Some(e) = els {
                    let jend = self.emit(Op::Jump { to: 0 });
                    self.patch_all(jf);
                    self.block(e);
                    let h = self.here();
                    self.patch(jend, h);
                } else {
                    self.patch_all(jf);
                }
            }
            StmtKind::For { var, iter, body } => {
                let l = self.expr(iter);
                let elem = match &l.ty {
                    Ty::List(t) => (**t).clone(),
                    Ty::Error => Ty::Error,
                    other => {
                        let g = self.cx.env.group_names();
                        let m = format!("`for` needs a list, found {}", other.name(&g));
                        self.error(err("E0301", iter.span, m));
                        Ty::Error
                    }
                };
                let list = self.temp();
                self.emit(Op::Mov { dst: list, src: l.reg });
                let idx = self.load(Value::Int(0));
                let v = self.temp();
                let top = self.here();
                let it = self.emit(Op::IterNext { list, idx, dst: v, done: 0 });
                let depth = self.locals.len();
                self.locals.push(Local { name: var.name.clone(), reg: v, ty: elem, iv: Iv::ANY });
                self.loops.push((Vec::new(), self.phase_depth));
                self.block(body);
                self.locals.truncate(depth);
                self.emit(Op::Jump { to: top });
                let h = self.here();
                self.patch(it, h);
                self.close_loop();
            }
            StmtKind::While { cond, body } => {
                let top = self.here();
                let jf = self.jump_if_false(cond);
                self.loops.push((Vec::new(), self.phase_depth));
                self.block(body);
                self.emit(Op::Jump { to: top });
                self.patch_all(jf);
                self.close_loop();
            }
            StmtKind::Break => match self.loops.last() {
                Some((_, d)) if *d == self.phase_depth => {
                    let j = self.emit(Op::Jump { to: 0 });
                    if let Some(l) = self.loops.last_mut() {
                        l.0.push(j);
                    }
                }
                Some(_) => self.error(err("E0301", span, "`break` may not leave a `phase`")),
                None => self.error(err("E0301", span, "`break` outside a `while`, `for` or `turns` loop")),
            },
            StmtKind::Turns { count, body } => {
                if !self.effect_allowed(span, "`turns`") {
                    return;
                }
                let n = self.expr(count);
                self.expect_ty(&n, &Ty::Int, count.span, "number of turns");
                let limit = self.temp();
                self.emit(Op::Mov { dst: limit, src: n.reg });
                // The loop counts from the scenario's first turn (`start turn N;`, else 1).
                let t = self.temp();
                self.emit(Op::Builtin { b: Builtin::FirstTurn, dst: t, a: [NO_REG; 5], argc: 0 });
                let one = self.load(Value::Int(1));
                let top = self.here();
                let c = self.temp();
                self.emit(Op::Gt { dst: c, a: t, b: limit });
                let jf = self.emit(Op::JumpIf { cond: c, to: 0 });
                self.emit(Op::TurnBegin { turn: t });
                self.loops.push((Vec::new(), self.phase_depth));
                self.block(body);
                self.emit(Op::TurnEnd);
                self.emit(Op::Add { dst: t, a: t, b: one });
                self.emit(Op::Jump { to: top });
                let h = self.here();
                self.patch(jf, h);
                self.close_loop();
            }
            StmtKind::Phase { name, side, body } => {
                if !self.effect_allowed(span, "`phase`") {
                    return;
                }
                let s = self.expr(side);
                self.expect_ty(&s, &Ty::Side, side.span, "phasing side");
                let nm = self.cx.string(&name.name);
                self.emit(Op::PhaseBegin { name: nm, side: s.reg });
                self.phase_depth += 1;
                self.block(body);
                self.phase_depth -= 1;
                self.emit(Op::PhaseEnd);
            }
            StmtKind::Call { name, args } => {
                let Some(sig) = self.cx.env.callables.get(&name.name).cloned() else {
                    let cands: Vec<String> = self.cx.env.callables.keys().cloned().collect();
                    let mut d = err("E0109", name.span, format!("unknown procedure `{}`", name.name));
                    if let Some(s) = suggest(&name.name, cands.iter().map(|s| s.as_str())) {
                        d = d.with_note(format!("did you mean `{s}`?"));
                    }
                    self.error(d);
                    for a in args {
                        self.expr(a);
                    }
                    return;
                };
                if sig.kind == CallableKind::Procedure && !self.effect_allowed(span, "calling a procedure") {
                    return;
                }
                self.cx.env.used.insert(name.name.clone());
                self.call_user(&sig, name, args, span);
            }
            StmtKind::ClearTrack { track, index } => {
                let keys: Vec<&Expr> = index.iter().collect();
                self.track_clear(track, &keys, span);
            }
            StmtKind::SetTrack { track, index, value } => {
                let keys: Vec<&Expr> = index.iter().collect();
                self.track_put(track, &keys, value, false, span);
            }
            StmtKind::Return(value) => match (value, self.returns.clone()) {
                (None, None) => {
                    self.emit(Op::RetNil);
                }
                (Some(v), Some(t)) => {
                    let o = self.expr(v);
                    self.expect_ty(&o, &t, v.span, "returned value");
                    self.emit(Op::Ret { src: o.reg });
                }
                (Some(v), None) => {
                    self.error(
                        err(
                            "E0308",
                            v.span,
                            format!("a value returned from a {} that returns none", self.what),
                        )
                        .with_note("declare the result type: `procedure p(...) -> Int { ... }`"),
                    );
                }
                (None, Some(t)) => {
                    let g = self.cx.env.group_names();
                    self.error(err(
                        "E0308",
                        span,
                        format!("`return;` without a value in a procedure that returns {}", t.name(&g)),
                    ));
                }
            },
            StmtKind::Face { unit, dir, vertex } => {
                if !self.effect_allowed(span, "`face`") {
                    return;
                }
                if !self.cx.env.map_dims.areas.is_empty() {
                    self.error(err("E0509", span, "an area map has no hexsides to face"));
                }
                let u = self.expr(unit);
                self.expect_ty(&u, &Ty::Unit, unit.span, "`face` unit");
                let d = self.expr(dir);
                self.expect_ty(&d, &Ty::Int, dir.span, "facing (a hexside 0-5)");
                self.emit(Op::Face { u: u.reg, dir: d.reg, vertex: *vertex });
            }
            StmtKind::Form { unit, formation } => {
                if !self.effect_allowed(span, "`form`") {
                    return;
                }
                let u = self.expr(unit);
                self.expect_ty(&u, &Ty::Unit, unit.span, "`form` unit");
                let Some(g) = self.cx.env.formation_group else {
                    self.error(err("E0306", formation.span, "`form` needs a `formations` declaration"));
                    return;
                };
                let f = self.expr(formation);
                self.expect_ty(&f, &Ty::Code(g), formation.span, "formation");
                self.emit(Op::Form { u: u.reg, f: f.reg });
            }
            StmtKind::RegainStep(e) => {
                if !self.effect_allowed(span, "`regain_step`") {
                    return;
                }
                let u = self.expr(e);
                self.expect_ty(&u, &Ty::Unit, e.span, "unit");
                self.emit(Op::RegainStep { u: u.reg });
            }
            StmtKind::Move { unit, to } => {
                if !self.effect_allowed(span, "`move`") {
                    return;
                }
                let u = self.expr(unit);
                self.expect_ty(&u, &Ty::Unit, unit.span, "`move` unit");
                let h = self.expr(to);
                self.expect_ty(&h, &Ty::Hex, to.span, "`move` destination");
                self.emit(Op::MoveUnit { u: u.reg, h: h.reg });
            }
            StmtKind::Eliminate(e) | StmtKind::Remove(e) | StmtKind::LoseStep(e) => {
                if !self.effect_allowed(span, "this effect") {
                    return;
                }
                let u = self.expr(e);
                self.expect_ty(&u, &Ty::Unit, e.span, "unit");
                let op = match k {
                    StmtKind::Eliminate(_) => Op::Eliminate { u: u.reg },
                    StmtKind::Remove(_) => Op::Remove { u: u.reg },
                    _ => Op::LoseStep { u: u.reg },
                };
                self.emit(op);
            }
            StmtKind::Mark { target, marker } | StmtKind::Unmark { target, marker } => {
                if !self.effect_allowed(span, "`mark`") {
                    return;
                }
                let t = self.expr(target);
                let Some(m) = self.marker(marker, &t, target.span) else { return };
                let op = if matches!(k, StmtKind::Mark { .. }) {
                    Op::Mark { obj: t.reg, marker: m }
                } else {
                    Op::Unmark { obj: t.reg, marker: m }
                };
                self.emit(op);
            }
            StmtKind::Adjust { track, index: Some(a), index2: Some(b), by } => {
                self.track_put(track, &[a, b], by, true, span);
            }
            StmtKind::Adjust { track, index, by, .. } => {
                if !self.effect_allowed(span, "`adjust`") {
                    return;
                }
                if self
                    .cx
                    .env
                    .track_second
                    .get(self.cx.env.track_index(&track.name).unwrap_or(usize::MAX))
                    .map(|s| s.is_some())
                    .unwrap_or(false)
                {
                    let keys: Vec<&Expr> = index.iter().collect();
                    self.track_put(track, &keys, by, true, span);
                    return;
                }
                let Some(ti) = self.cx.env.track_index(&track.name) else {
                    self.error(err("E0113", track.span, format!("unknown track `{}`", track.name)));
                    return;
                };
                self.cx.env.used.insert(track.name.clone());
                if self.refuse_adjust(ti, track, span) {
                    return;
                }
                let per_side = self.cx.env.tracks[ti].1;
                let idx_ty = self.track_index_ty(ti);
                let side = match (index, per_side) {
                    (Some(ix), true) => {
                        let s = self.expr(ix);
                        self.expect_ty(&s, &idx_ty, ix.span, "track index");
                        s.reg
                    }
                    (None, false) => NO_REG,
                    (Some(ix), false) => {
                        self.error(err(
                            "E0301",
                            ix.span,
                            format!("track `{}` is not per side or unit", track.name),
                        ));
                        return;
                    }
                    (None, true) => {
                        let what = match idx_ty {
                            Ty::Unit => "unit",
                            Ty::Hex => "hex",
                            Ty::Int => "border",
                            _ => "side",
                        };
                        self.error(err(
                            "E0301",
                            track.span,
                            format!("track `{}` is per {what}: write {}[{what}]", track.name, track.name),
                        ));
                        return;
                    }
                };
                let d = self.expr(by);
                self.expect_ty(&d, &Ty::Int, by.span, "adjustment");
                self.emit(Op::Adjust { track: ti as u16, side, by: d.reg });
            }
            StmtKind::Retreat { unit, hexes, to } => {
                if !self.effect_allowed(span, "`retreat`") {
                    return;
                }
                let u = self.expr(unit);
                self.expect_ty(&u, &Ty::Unit, unit.span, "retreating unit");
                let n = self.expr(hexes);
                self.expect_ty(&n, &Ty::Int, hexes.span, "retreat length");
                match to {
                    None => {
                        self.emit(Op::Builtin {
                            b: Builtin::Retreat,
                            dst: NO_REG,
                            a: [u.reg, n.reg, NO_REG, NO_REG, NO_REG],
                            argc: 2,
                        });
                    }
                    Some(t) => {
                        let h = self.expr(t);
                        self.expect_ty(&h, &Ty::Hex, t.span, "the hex the retreat ends in");
                        self.emit(Op::Builtin {
                            b: Builtin::RetreatTo,
                            dst: NO_REG,
                            a: [u.reg, n.reg, h.reg, NO_REG, NO_REG],
                            argc: 3,
                        });
                    }
                }
            }
            StmtKind::Win { side, reason } => {
                if !self.effect_allowed(span, "`win`") {
                    return;
                }
                let s = self.expr(side);
                // One side, or several sharing the victory (`win team(s)`, 6.1c).
                if s.ty != Ty::list(Ty::Side) {
                    self.expect_ty(&s, &Ty::Side, side.span, "winner");
                }
                let r = self.cx.string(reason);
                self.emit(Op::Win { side: s.reg, reason: r });
            }
            StmtKind::Draw { reason } => {
                if !self.effect_allowed(span, "`draw`") {
                    return;
                }
                let r = self.cx.string(reason);
                self.emit(Op::Draw { reason: r });
            }
            StmtKind::Put { value, cup } => {
                if !self.effect_allowed(span, "`put`") {
                    return;
                }
                let v = self.expr(value);
                let Some(ci) = self.cup(cup) else { return };
                let want = self.cx.env.cups[ci].1.clone();
                self.expect_ty(&v, &want, value.span, &format!("value put in cup `{}`", cup.name));
                self.emit(Op::CupPut { cup: ci as u16, v: v.reg });
            }
            StmtKind::DrawCard { deck, hand, side } => {
                if !self.effect_allowed(span, "`draw from` a deck") {
                    return;
                }
                let sd = self.expr(side);
                self.expect_ty(&sd, &Ty::Side, side.span, "side whose hand draws");
                let (Some(di), Some(hi)) = (self.deck(deck), self.hand(hand)) else { return };
                let g = self.cx.env.decks[di].1;
                let want = self.cx.env.hands[hi].1.clone();
                if !Ty::Code(g).fits(&want) {
                    let gn = self.cx.env.group_names();
                    let m = format!(
                        "hand `{}` holds {}, not cards of `{}`",
                        hand.name,
                        want.name(&gn),
                        deck.name
                    );
                    self.error(err("E0301", hand.span, m));
                }
                self.emit(Op::DrawCard { deck: di as u16, hand: hi as u16, side: sd.reg });
            }
            StmtKind::CardOut { card, hand, side, play } => {
                if !self.effect_allowed(span, if *play { "`play`" } else { "`discard`" }) {
                    return;
                }
                let c = self.expr(card);
                let sd = self.expr(side);
                self.expect_ty(&sd, &Ty::Side, side.span, "side whose hand it is");
                let Some(hi) = self.hand(hand) else { return };
                let want = self.cx.env.hands[hi].1.clone();
                self.expect_ty(&c, &want, card.span, &format!("card from hand `{}`", hand.name));
                self.emit(Op::CardOut { card: c.reg, hand: hi as u16, side: sd.reg, play: *play });
            }
            StmtKind::Reshuffle(deck) => {
                if !self.effect_allowed(span, "`reshuffle`") {
                    return;
                }
                let Some(di) = self.deck(deck) else { return };
                self.emit(Op::Reshuffle { deck: di as u16 });
            }
            StmtKind::Transfer { unit, side } => {
                if !self.effect_allowed(span, "`transfer`") {
                    return;
                }
                let u = self.expr(unit);
                self.expect_ty(&u, &Ty::Unit, unit.span, "unit that changes sides");
                let sd = self.expr(side);
                self.expect_ty(&sd, &Ty::Side, side.span, "side it joins");
                self.emit(Op::Transfer { u: u.reg, side: sd.reg });
            }
            StmtKind::Empty(cup) => {
                if !self.effect_allowed(span, "`empty`") {
                    return;
                }
                let Some(ci) = self.cup(cup) else { return };
                self.emit(Op::CupEmpty { cup: ci as u16 });
            }
            StmtKind::Log { message, args } => {
                let regs: Vec<Reg> = args.iter().map(|a| self.expr(a).reg).collect();
                let base = self.next;
                for r in &regs {
                    let t = self.temp();
                    self.emit(Op::Mov { dst: t, src: *r });
                }
                let fmt = self.cx.string(message);
                self.emit(Op::Log { fmt, args: base, argc: regs.len() as u16 });
            }
        }
    }

    /// A deck or a hand by name (E0199 if unknown).
    fn named(&mut self, id: &Ident, names: Vec<String>, kind: &str) -> Option<usize> {
        match names.iter().position(|c| *c == id.name) {
            Some(i) => {
                self.cx.env.used.insert(id.name.clone());
                Some(i)
            }
            None => {
                let mut d = err("E0199", id.span, format!("unknown {kind} `{}`", id.name));
                if let Some(s) = suggest(&id.name, names.iter().map(|s| s.as_str())) {
                    d = d.with_note(format!("did you mean `{s}`?"));
                }
                self.error(d);
                None
            }
        }
    }

    fn deck(&mut self, deck: &Ident) -> Option<usize> {
        let names = self.cx.env.decks.iter().map(|d| d.0.clone()).collect();
        self.named(deck, names, "deck")
    }

    fn hand(&mut self, hand: &Ident) -> Option<usize> {
        let names = self.cx.env.hands.iter().map(|d| d.0.clone()).collect();
        self.named(hand, names, "hand")
    }

    fn cup(&mut self, cup: &Ident) -> Option<usize> {
        match self.cx.env.cups.iter().position(|c| c.0 == cup.name) {
            Some(i) => {
                self.cx.env.used.insert(cup.name.clone());
                Some(i)
            }
            None => {
                let cands: Vec<String> = self.cx.env.cups.iter().map(|c| c.0.clone()).collect();
                let mut d = err("E0115", cup.span, format!("unknown cup `{}`", cup.name));
                if let Some(s) = suggest(&cup.name, cands.iter().map(|s| s.as_str())) {
                    d = d.with_note(format!("did you mean `{s}`?"));
                }
                self.error(d);
                None
            }
        }
    }

    fn marker(&mut self, marker: &Ident, target: &Out, span: Span) -> Option<u16> {
        let Some(m) = self.cx.env.marker_index(&marker.name) else {
            let cands: Vec<String> = self.cx.env.markers.iter().map(|m| m.0.clone()).collect();
            let mut d = err("E0107", marker.span, format!("unknown marker `{}`", marker.name));
            if let Some(s) = suggest(&marker.name, cands.iter().map(|s| s.as_str())) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            self.error(d);
            return None;
        };
        self.cx.env.used.insert(marker.name.clone());
        let want = match self.cx.env.markers[m].1 {
            MarkerTarget::Unit => Ty::Unit,
            MarkerTarget::Hex => Ty::Hex,
            MarkerTarget::Side => Ty::Side,
        };
        self.expect_ty(target, &want, span, &format!("marker `{}`", marker.name));
        Some(m as u16)
    }

    /// Call a user fn, procedure or modifier set; args into consecutive registers.
    fn call_user(&mut self, sig: &crate::env::Sig, name: &Ident, args: &[Expr], span: Span) -> Out {
        if args.len() != sig.params.len() {
            let m = format!("`{}` takes {} argument(s), {} given", name.name, sig.params.len(), args.len());
            let mut d = err("E0302", span, m).with_label(sig.span, "declared here");
            if sig.kind == CallableKind::Modifiers {
                let declared = sig.params.len().saturating_sub(1);
                d = d.with_note(format!(
                    "a modifier set takes its {declared} declared parameter(s) and then the base value it modifies, \
                     which its declaration leaves implicit: `{}(..., base)`",
                    name.name
                ));
            }
            self.error(d);
        }
        if let Some(o) = self.try_inline(sig, name, args) {
            return o;
        }
        // Arguments are computed straight into the callee's consecutive registers.
        let base = self.block_regs(args.len());
        let outs: Vec<(Out, Span)> =
            args.iter().enumerate().map(|(i, a)| (self.expr_to(a, base + i as Reg), a.span)).collect();
        for (i, (o, sp)) in outs.iter().enumerate() {
            if let Some(p) = sig.params.get(i) {
                self.expect_ty(o, p, *sp, &format!("argument {} of `{}`", i + 1, name.name));
            }
        }
        let dst = self.dst();
        // A call from a procedure's statement to a `fn` or modifier set is traced: the
        // log shows which modifier lines applied in it (a combat's strengths).
        let trace = self.traced && matches!(sig.kind, CallableKind::Fn | CallableKind::Modifiers);
        self.emit(Op::Call { f: sig.id, args: base, argc: outs.len() as u16, dst, trace });
        let mut out = Self::out(dst, sig.ret.clone(), Iv::ANY);
        if sig.kind == CallableKind::Modifiers {
            if let Some((adds, paras)) = self.cx.modifier_info.get(&name.name).cloned() {
                let base_iv = outs.last().map(|(o, _)| o.iv).unwrap_or(Iv::ANY);
                // `adds` is ANY when the set multiplies; a cap bounds the whole result.
                out.iv = match adds.cap {
                    Some((lo, hi)) => {
                        let v = base_iv.add(adds.iv);
                        Iv::new(v.lo.clamp(lo, hi), v.hi.clamp(lo, hi))
                    }
                    None => base_iv.add(adds.iv),
                };
                out.mods = paras;
                for (o, _) in &outs {
                    out.mods.extend(o.mods.iter().cloned());
                }
            }
        }
        out
    }

    /// Inline a small `fn` at its call site: its body is compiled in this frame with the
    /// parameters bound to the argument registers, under the callee's paragraph. Saves
    /// the call (frame set-up, argument copy, return) on hot rules such as movement costs.
    fn try_inline(&mut self, sig: &crate::env::Sig, name: &Ident, args: &[Expr]) -> Option<Out> {
        let ret = sig.ret.clone();
        let mut dst = None;
        let o = self.with_inlined(sig, name, args, |me, body| {
            let d = me.dst_outer.take().unwrap_or_else(|| me.temp());
            dst = Some(d);
            me.expr_to(body, d)
        })?;
        Some(Out { reg: dst.unwrap_or(o.reg), ty: ret, iv: o.iv, mods: o.mods })
    }

    /// If `name(args)` is a small `fn`, compile its body in this frame with `f`: the
    /// parameters are bound to the argument registers (arguments already in a local's
    /// register are used in place: an inlined body cannot assign its parameters), under
    /// the callee's paragraph, with diagnostics off (the body was checked where declared).
    fn with_inlined<T>(
        &mut self,
        sig: &crate::env::Sig,
        name: &Ident,
        args: &[Expr],
        f: impl FnOnce(&mut Self, &Expr) -> T,
    ) -> Option<T> {
        if sig.kind != CallableKind::Fn || self.inlining.len() >= 4 || self.inlining.contains(&name.name) {
            return None;
        }
        // Shared, not cloned: inlining is frequent (every small `fn` in a condition).
        let inline = std::rc::Rc::clone(self.cx.inline_bodies.get(&name.name)?);
        let (params, body, para) = &*inline;
        if params.len() != args.len() || sig.params.len() != args.len() {
            return None;
        }
        let mut regs = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let local = match &a.kind {
                ExprKind::Name(n) => self.lookup_local(n).map(|l| (l.reg, l.ty.clone())),
                _ => None,
            };
            let (reg, ty) = match local {
                Some(x) => x,
                None => {
                    let o = self.expr(a);
                    (o.reg, o.ty)
                }
            };
            self.expect_ty(
                &Out { reg, ty, iv: Iv::ANY, mods: Vec::new() },
                &sig.params[i],
                a.span,
                &format!("argument {} of `{}`", i + 1, name.name),
            );
            regs.push(reg);
        }
        // The caller's result register (its hint) is taken before the body is compiled.
        self.dst_outer = Some(self.dst());
        let saved_locals = std::mem::take(&mut self.locals);
        let saved_para = self.para;
        let saved_pure = self.pure;
        let saved_span = self.span;
        for ((p, t), r) in params.iter().zip(&sig.params).zip(&regs) {
            self.locals.push(Local { name: p.clone(), reg: *r, ty: t.clone(), iv: Iv::ANY });
        }
        self.para = self.cx.env.para(para);
        self.pure = true;
        self.inlining.push(name.name.clone());
        let out = f(self, body);
        self.inlining.pop();
        self.locals = saved_locals;
        self.para = saved_para;
        self.pure = saved_pure;
        self.span = saved_span;
        self.dst_outer = None;
        Some(out)
    }

    /// An inlinable call in a condition: its body's jumps, if it can be inlined.
    fn inline_jumps(&mut self, e: &Expr, when_true: bool) -> Option<Vec<usize>> {
        let ExprKind::Call(name, args) = &e.kind else { return None };
        let sig = self.cx.env.callables.get(&name.name).cloned()?;
        if sig.ret != Ty::Bool || !self.cx.inline_bodies.contains_key(&name.name) {
            return None;
        }
        self.cx.env.used.insert(name.name.clone());
        self.with_inlined(&sig, name, args, |me, body| {
            me.dst_outer = None;
            if when_true {
                me.jump_if_true(body)
            } else {
                me.jump_if_false(body)
            }
        })
    }

    // ------------------------------------------------------------ expressions

    pub fn expr(&mut self, e: &Expr) -> Out {
        let saved = self.span;
        self.span = e.span;
        let outer = self.out_hint.take();
        self.out_hint = self.hint.take();
        let o = self.expr_kind(e);
        self.out_hint = outer;
        self.span = saved;
        o
    }

    fn expr_kind(&mut self, e: &Expr) -> Out {
        match &e.kind {
            ExprKind::Int(i) => {
                let r = self.load_result(Value::Int(*i));
                Self::out(r, Ty::Int, Iv::exact(*i))
            }
            ExprKind::Bool(b) => {
                let r = self.load_result(Value::Bool(*b));
                Self::out(r, Ty::Bool, Iv::ANY)
            }
            ExprKind::Str(_) => {
                self.error(err("E0301", e.span, "strings are only allowed as messages and names"));
                Self::out(self.next, Ty::Error, Iv::ANY)
            }
            ExprKind::Hex(id) => {
                let h = crate::map::parse_hex(self.cx.env_map_dims(), id);
                match h {
                    Some(h) => {
                        let r = self.load_result(Value::Hex(h));
                        Self::out(r, Ty::Hex, Iv::ANY)
                    }
                    None => {
                        let (code, msg) = crate::map::space_error(self.cx.env_map_dims(), id);
                        self.error(err(code, e.span, format!("@{id}: {msg}")));
                        Self::out(self.temp(), Ty::Error, Iv::ANY)
                    }
                }
            }
            ExprKind::Name(n) => self.name(n, e.span),
            ExprKind::Neg(a) => {
                let o = self.expr(a);
                self.expect_ty(&o, &Ty::Int, a.span, "negation");
                let dst = self.dst();
                self.emit(Op::Neg { dst, a: o.reg });
                let mut out = Self::out(dst, Ty::Int, o.iv.neg());
                out.mods = o.mods;
                out
            }
            ExprKind::Not(a) => {
                let o = self.expr(a);
                self.expect_ty(&o, &Ty::Bool, a.span, "`not`");
                let dst = self.dst();
                self.emit(Op::Not { dst, a: o.reg });
                Self::out(dst, Ty::Bool, Iv::ANY)
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            ExprKind::If(c, a, b) => {
                let dst = self.dst();
                let jf = self.jump_if_false(c);
                let ao = self.expr_to(a, dst);
                let jend = self.emit(Op::Jump { to: 0 });
                self.patch_all(jf);
                let bo = self.expr_to(b, dst);
                let h = self.here();
                self.patch(jend, h);
                if !ao.ty.fits(&bo.ty) {
                    let g = self.cx.env.group_names();
                    let (ta, tb) = (ao.ty.name(&g), bo.ty.name(&g));
                    let m = format!("`if` branches differ: {ta} and {tb}");
                    let d = err("E0301", e.span, m)
                        .with_label(a.span, format!("`then` branch: {ta}"))
                        .with_label(b.span, format!("`else` branch: {tb}"))
                        .with_note("both branches of an `if` expression must have the same type");
                    self.error(d);
                }
                let ty = ao.ty.clone().join(bo.ty.clone());
                let mut out = Self::out(dst, ty, ao.iv.union(bo.iv));
                out.mods = ao.mods;
                out.mods.extend(bo.mods);
                out
            }
            ExprKind::Call(name, args) => self.call_expr(name, args, e.span),
            ExprKind::Field(obj, field) => self.field(obj, field),
            ExprKind::Index(base, a, b) => self.index(base, a, b.as_deref(), e.span),
            ExprKind::Is(obj, class) => {
                let o = self.expr(obj);
                self.expect_ty(&o, &Ty::Unit, obj.span, "`is`");
                let Some(c) = self.cx.env.class_index(&class.name) else {
                    let cands: Vec<String> = self.cx.env.classes.clone();
                    let mut d = err("E0104", class.span, format!("unknown class `{}`", class.name));
                    if let Some(s) = suggest(&class.name, cands.iter().map(|s| s.as_str())) {
                        d = d.with_note(format!("did you mean `{s}`?"));
                    }
                    self.error(d);
                    return Self::out(self.temp(), Ty::Bool, Iv::ANY);
                };
                let dst = self.dst();
                self.emit(Op::IsClass { dst, u: o.reg, class: c as u8 });
                Self::out(dst, Ty::Bool, Iv::ANY)
            }
            ExprKind::Has(obj, marker) => {
                let o = self.expr(obj);
                let dst = self.dst();
                if let Some(m) = self.marker(marker, &o, obj.span) {
                    self.emit(Op::HasMarker { dst, obj: o.reg, marker: m });
                }
                Self::out(dst, Ty::Bool, Iv::ANY)
            }
            ExprKind::DrawFrom(cup) => {
                if self.pure {
                    self.error(err(
                        "E0304",
                        e.span,
                        format!("drawing from a cup is not allowed in a {}", self.what),
                    ));
                }
                let dst = self.dst();
                let Some(ci) = self.cup(cup) else { return Self::out(dst, Ty::Error, Iv::ANY) };
                self.emit(Op::CupDraw { dst, cup: ci as u16 });
                let ty = self.cx.env.cups[ci].1.clone();
                Self::out(dst, ty, Iv::ANY)
            }
            ExprKind::Roll(d) => {
                if self.pure {
                    self.error(err("E0304", e.span, format!("a roll is not allowed in a {}", self.what)));
                }
                let dst = self.dst();
                self.emit(Op::Roll {
                    dst,
                    count: d.count.min(255) as u8,
                    sides: d.sides.min(u16::MAX as u32) as u16,
                });
                let (n, s) = (d.count as i64, d.sides as i64);
                let off = if d.sides == self.cx.env.die.0 { self.cx.env.die.1 } else { 0 };
                Self::out(dst, Ty::Int, Iv::new(n * (1 + off), n * (s + off)))
            }
            ExprKind::RollPool { count, sides } => {
                if self.pure {
                    self.error(err("E0304", e.span, format!("a roll is not allowed in a {}", self.what)));
                }
                let n = self.expr(count);
                self.expect_ty(&n, &Ty::Int, count.span, "number of dice");
                let dst = self.dst();
                self.emit(Op::RollPool { dst, count: n.reg, sides: (*sides).min(u16::MAX as u32) as u16 });
                Self::out(dst, Ty::list(Ty::Int), Iv::ANY)
            }
            ExprKind::Let { name, value, body } => {
                let target = self.out_hint.take();
                let reg = self.temp();
                let o = self.expr_to(value, reg);
                if o.ty == Ty::Nil {
                    self.error(err("E0301", value.span, "this expression has no value to bind"));
                }
                let depth = self.locals.len();
                self.locals.push(Local { name: name.name.clone(), reg, ty: o.ty, iv: o.iv });
                self.hint = target;
                let out = self.expr(body);
                self.locals.truncate(depth);
                out
            }
            ExprKind::Choose { var, from, by, prefer, or_none, none_score, secret, private, what } => {
                if let (Some(ns), None) = (none_score, prefer) {
                    self.error(
                        err("E0301", ns.span, "a score for `none` needs `prefer` scores for the options")
                            .with_note("write `prefer SCORE or none prefer SCORE`"),
                    );
                }
                if self.pure {
                    self.error(err("E0304", e.span, format!("a choice is not allowed in a {}", self.what)));
                }
                let l = self.expr(from);
                let elem = self.elem_ty(&l, from.span);
                let list = self.temp();
                self.emit(Op::Mov { dst: list, src: l.reg });
                let side = self.expr(by);
                self.expect_ty(&side, &Ty::Side, by.span, "the chooser");
                let side_r = self.temp();
                self.emit(Op::Mov { dst: side_r, src: side.reg });
                let scores = match prefer {
                    Some(p) => {
                        // Scores are computed only for agents that read them.
                        let sc = self.load(Value::Nil);
                        let want = self.temp();
                        self.emit(Op::WantsScores { dst: want, side: side_r, list });
                        let skip = self.emit(Op::JumpIfNot { cond: want, to: 0 });
                        self.emit(Op::ListNew { dst: sc });
                        // Scores must not change the game: agents that skip them would
                        // otherwise see a different game (a roll consumed, a unit moved).
                        let saved_pure = self.pure;
                        let saved_what = self.what;
                        let saved_traced = std::mem::replace(&mut self.traced, false);
                        self.pure = true;
                        self.what = "`prefer` score";
                        self.each(list, &var.name, elem.clone(), |me, _v| {
                            let o = me.expr(p);
                            me.expect_ty(&o, &Ty::Int, p.span, "`prefer` score");
                            me.emit(Op::ListPush { list: sc, v: o.reg });
                        });
                        // The score of declining follows the options' scores.
                        if let Some(ns) = none_score {
                            let o = self.expr(ns);
                            self.expect_ty(&o, &Ty::Int, ns.span, "`none` score");
                            self.emit(Op::ListPush { list: sc, v: o.reg });
                        }
                        self.pure = saved_pure;
                        self.what = saved_what;
                        self.traced = saved_traced;
                        let h = self.here();
                        self.patch(skip, h);
                        sc
                    }
                    None => NO_REG,
                };
                let dst = self.dst();
                let w = self.cx.string(what);
                self.emit(Op::Choose {
                    dst,
                    list,
                    scores,
                    side: side_r,
                    what: w,
                    or_none: *or_none,
                    secret: *secret,
                    private: *private,
                });
                Self::out(dst, elem, Iv::ANY)
            }
            ExprKind::Quant { q, var, iter, filter, body } => {
                self.quant(*q, var, iter, filter.as_deref(), body.as_deref(), e.span)
            }
            ExprKind::List(items) => {
                let dst = self.dst();
                self.emit(Op::ListNew { dst });
                let mut ty = Ty::Error;
                for it in items {
                    let o = self.expr(it);
                    if !o.ty.fits(&ty) {
                        self.expect_ty(&o, &ty.clone(), it.span, "list element");
                    }
                    ty = ty.join(o.ty.clone());
                    self.emit(Op::ListPush { list: dst, v: o.reg });
                }
                Self::out(dst, Ty::list(ty), Iv::ANY)
            }
        }
    }

    fn elem_ty(&mut self, l: &Out, span: Span) -> Ty {
        match &l.ty {
            Ty::List(t) => (**t).clone(),
            Ty::Error => Ty::Error,
            other => {
                let g = self.cx.env.group_names();
                let m = format!("expected a list, found {}", other.name(&g));
                self.error(err("E0301", span, m));
                Ty::Error
            }
        }
    }

    /// What a quantifier loops over: `units_at(h)` straight from the board (an
    /// expression cannot move units), anything else as a list.
    fn iter_src(&mut self, iter: &Expr) -> (Src, Ty) {
        if let ExprKind::Call(name, args) = &iter.kind {
            if name.name == "units_at" && args.len() == 1 && !self.cx.env.callables.contains_key("units_at") {
                let saved = self.span;
                self.span = iter.span;
                let h = self.expr(&args[0]);
                self.expect_ty(&h, &Ty::Hex, args[0].span, "argument 1 of `units_at`");
                self.span = saved;
                return (Src::At(h.reg, iter.span), Ty::Unit);
            }
        }
        let l = self.expr(iter);
        let elem = self.elem_ty(&l, iter.span);
        // The body is an expression: it cannot assign the list's register, so the loop
        // reads it in place.
        (Src::List(l.reg), elem)
    }

    /// Loop over `src`, binding `var`; `body` emits per element. The loop is rotated:
    /// the first step at the top, the others at the bottom, branching back to the body
    /// (one instruction per element instead of a step and a jump).
    fn each(&mut self, src: impl Into<Src>, var: &str, elem: Ty, body: impl FnOnce(&mut Self, Reg)) {
        let idx = self.temp();
        let v = self.temp();
        let src = src.into();
        let step = |me: &mut Self, back: bool| -> usize {
            let op = match (src, back) {
                (Src::List(list), false) => Op::IterStart { list, idx, dst: v, done: 0 },
                (Src::List(list), true) => Op::IterNextBack { list, idx, dst: v, body: 0 },
                (Src::At(hex, _), false) => Op::IterAtStart { hex, idx, dst: v, done: 0 },
                (Src::At(hex, _), true) => Op::IterAtBack { hex, idx, dst: v, body: 0 },
            };
            let saved = me.span;
            if let Src::At(_, span) = src {
                me.span = span;
            }
            let at = me.emit(op);
            me.span = saved;
            at
        };
        let first = step(self, false);
        let top = self.here();
        self.locals.push(Local { name: var.to_string(), reg: v, ty: elem, iv: Iv::ANY });
        let keep = self.next;
        body(self, v);
        self.next = keep;
        self.locals.pop();
        let back = step(self, true);
        self.patch(back, top);
        let h = self.here();
        self.patch(first, h);
    }

    fn quant(
        &mut self,
        q: Quant,
        var: &Ident,
        iter: &Expr,
        filter: Option<&Expr>,
        body: Option<&Expr>,
        span: Span,
    ) -> Out {
        let (list, elem) = self.iter_src(iter);
        let needs_body = matches!(
            q,
            Quant::Sum
                | Quant::Any
                | Quant::All
                | Quant::Min
                | Quant::Max
                | Quant::Map
                | Quant::ArgMax
                | Quant::ArgMin
        );
        if needs_body && body.is_none() {
            self.error(err(
                "E0301",
                span,
                format!("`{q:?}` needs a body: `{} x in list: expression`", format!("{q:?}").to_lowercase()),
            ));
        }
        let acc = self.dst();
        let first = self.temp();
        let init = match q {
            Quant::Sum | Quant::Count => Value::Int(0),
            Quant::Any => Value::Bool(false),
            Quant::All => Value::Bool(true),
            Quant::Min | Quant::Max => Value::Int(0),
            Quant::Filter | Quant::Map | Quant::ArgMax | Quant::ArgMin => Value::Nil,
        };
        if matches!(q, Quant::Filter | Quant::Map) {
            self.emit(Op::ListNew { dst: acc });
        } else {
            let k = self.cx.konst(init);
            self.emit(Op::Const { dst: acc, k });
        }
        if matches!(q, Quant::Min | Quant::Max | Quant::ArgMax | Quant::ArgMin) {
            let kt = self.cx.konst(Value::Bool(true));
            self.emit(Op::Const { dst: first, k: kt });
        }
        // `argmax`/`argmin`: the best score so far (acc holds its element).
        let best = if matches!(q, Quant::ArgMax | Quant::ArgMin) { self.temp() } else { NO_REG };
        let mut body_iv = Iv::ANY;
        let mut body_ty = Ty::Int;
        let mut exit_jumps = Vec::new();
        let mark = self.hoist_fields(&var.name, &[filter, body]);
        self.each(list, &var.name, elem.clone(), |me, v| {
            let mut skip = Vec::new();
            if let Some(f) = filter {
                skip = me.jumps_ctx(f, false, "`where` condition");
            }
            match q {
                Quant::Count => {
                    me.emit(Op::AddK { dst: acc, a: acc, k: 1 });
                }
                Quant::Filter => {
                    me.emit(Op::ListPush { list: acc, v });
                }
                // `any` / `all`: branch on the body, to an exit that sets the answer.
                Quant::Any | Quant::All => {
                    if let Some(b) = body {
                        let ctx = if q == Quant::Any { "`any` body" } else { "`all` body" };
                        exit_jumps = me.jumps_ctx(b, q == Quant::Any, ctx);
                    }
                }
                _ => {
                    if let Some(b) = body {
                        let o = me.expr(b);
                        body_iv = o.iv;
                        body_ty = o.ty.clone();
                        match q {
                            Quant::Sum => {
                                me.expect_ty(&o, &Ty::Int, b.span, "`sum` body");
                                me.emit(Op::Add { dst: acc, a: acc, b: o.reg });
                            }

                            Quant::Map => {
                                me.emit(Op::ListPush { list: acc, v: o.reg });
                            }
                            // The first element with the greatest (least) body: a later
                            // one replaces it only when strictly better.
                            Quant::ArgMax | Quant::ArgMin => {
                                me.expect_ty(&o, &Ty::Int, b.span, "`argmax`/`argmin` body");
                                let jtake = me.emit(Op::JumpIf { cond: first, to: 0 });
                                let better = me.temp();
                                if q == Quant::ArgMax {
                                    me.emit(Op::Gt { dst: better, a: o.reg, b: best });
                                } else {
                                    me.emit(Op::Lt { dst: better, a: o.reg, b: best });
                                }
                                let jskip = me.emit(Op::JumpIfNot { cond: better, to: 0 });
                                let h = me.here();
                                me.patch(jtake, h);
                                me.emit(Op::Mov { dst: best, src: o.reg });
                                me.emit(Op::Mov { dst: acc, src: v });
                                let kf = me.cx.konst(Value::Bool(false));
                                me.emit(Op::Const { dst: first, k: kf });
                                let h = me.here();
                                me.patch(jskip, h);
                            }
                            Quant::Min | Quant::Max => {
                                me.expect_ty(&o, &Ty::Int, b.span, "`min`/`max` body");
                                let jf = me.emit(Op::JumpIfNot { cond: first, to: 0 });
                                me.emit(Op::Mov { dst: acc, src: o.reg });
                                let kf = me.cx.konst(Value::Bool(false));
                                me.emit(Op::Const { dst: first, k: kf });
                                let jend = me.emit(Op::Jump { to: 0 });
                                let h = me.here();
                                me.patch(jf, h);
                                let bi = if q == Quant::Min { Builtin::Min } else { Builtin::Max };
                                me.emit(Op::Builtin {
                                    b: bi,
                                    dst: acc,
                                    a: [acc, o.reg, NO_REG, NO_REG, NO_REG],
                                    argc: 2,
                                });
                                let h = me.here();
                                me.patch(jend, h);
                            }
                            _ => {}
                        }
                    }
                }
            }
            me.patch_all(skip);
        });
        self.field_cache.truncate(mark);
        if !exit_jumps.is_empty() {
            // Loop done: the initial answer stands; exits set the other one.
            let end = self.emit(Op::Jump { to: 0 });
            self.patch_all(exit_jumps);
            let k = self.cx.konst(Value::Bool(q == Quant::Any));
            self.emit(Op::Const { dst: acc, k });
            let h = self.here();
            self.patch(end, h);
        }
        match q {
            Quant::Sum => Self::out(acc, Ty::Int, Iv::ANY),
            Quant::Count => Self::out(acc, Ty::Int, Iv::new(0, BIG)),
            Quant::Any | Quant::All => Self::out(acc, Ty::Bool, Iv::ANY),
            Quant::Min | Quant::Max => Self::out(acc, Ty::Int, body_iv),
            Quant::Filter => Self::out(acc, Ty::list(elem), Iv::ANY),
            Quant::Map => Self::out(acc, Ty::list(body_ty), Iv::ANY),
            Quant::ArgMax | Quant::ArgMin => Self::out(acc, elem, Iv::ANY),
        }
    }

    fn name(&mut self, n: &str, span: Span) -> Out {
        if let Some(l) = self.lookup_local(n) {
            return Self::out(l.reg, l.ty.clone(), l.iv);
        }
        if let Some(g) = self.cx.env.globals.get(n).cloned() {
            self.cx.env.used.insert(n.to_string());
            let (v, ty) = match g {
                Global::Side(s) => (Value::Side(s), Ty::Side),
                Global::UnitType(t) => (Value::UnitType(t), Ty::UnitType),
                Global::Terrain(t) => (Value::Terrain(t), Ty::Terrain),
                Global::Code(c, grp) => (Value::Sym(c), Ty::Code(grp)),
            };
            let r = self.load_result(v);
            return Self::out(r, ty, Iv::ANY);
        }
        if let Some(ti) = self.cx.env.track_index(n) {
            self.cx.env.used.insert(n.to_string());
            let (_, per_side, lo, hi) = self.cx.env.tracks[ti].clone();
            if per_side {
                let form = self.track_form(ti);
                self.error(err("E0301", span, format!("track `{n}` has keys: write {form}")));
            }
            let dst = self.dst();
            self.emit(Op::TrackGet { dst, track: ti as u16, side: NO_REG });
            if let Some(t) = self.cx.env.track_holds_ty(ti) {
                return Self::out(dst, t, Iv::ANY);
            }
            return Self::out(dst, Ty::Int, Iv::new(lo, hi));
        }
        let mut cands: Vec<String> = self.locals.iter().map(|l| l.name.clone()).collect();
        cands.extend(self.cx.env.globals.keys().cloned());
        let mut d = err("E0306", span, format!("unknown name `{n}`"));
        if let Some(s) = suggest(n, cands.iter().map(|s| s.as_str())) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        self.error(d);
        Self::out(self.temp(), Ty::Error, Iv::ANY)
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Out {
        // Short-circuit `and` / `or` as a value: branch on the whole chain, then set
        // the result once (no copy per operand).
        if matches!(op, BinOp::And | BinOp::Or) {
            let dst = self.dst();
            let yes = self.jump_if_true_chain(op, a, b);
            let kf = self.cx.konst(Value::Bool(false));
            self.emit(Op::Const { dst, k: kf });
            let end = self.emit(Op::Jump { to: 0 });
            self.patch_all(yes);
            let kt = self.cx.konst(Value::Bool(true));
            self.emit(Op::Const { dst, k: kt });
            let h = self.here();
            self.patch(end, h);
            return Self::out(dst, Ty::Bool, Iv::ANY);
        }
        let x = self.expr(a);
        let before = self.code.len();
        let y = self.expr(b);
        if op == BinOp::Add && (matches!(x.ty, Ty::List(_)) || matches!(y.ty, Ty::List(_))) {
            return self.list_pair(Builtin::Concat, "`+` of lists", &x, &y, b.span);
        }
        // `x + 3`, `x - 3`: the literal goes into the instruction.
        let lit = match (&b.kind, self.code.last()) {
            (ExprKind::Int(k), Some(&Op::Const { dst, .. }))
                if self.code.len() == before + 1 && dst == y.reg && matches!(op, BinOp::Add | BinOp::Sub) =>
            {
                let k = if op == BinOp::Sub { k.checked_neg() } else { Some(*k) };
                k.and_then(|k| i32::try_from(k).ok()).filter(|&k| k != i32::MIN)
            }
            _ => None,
        };
        if lit.is_some() {
            self.code.pop();
            self.paras.pop();
            self.spans.pop();
        }
        let dst = self.dst();
        let (ra, rb) = (x.reg, y.reg);
        let arith = |me: &mut Self| {
            me.expect_ty(&x, &Ty::Int, a.span, "arithmetic operand");
            me.expect_ty(&y, &Ty::Int, b.span, "arithmetic operand");
        };
        let mut mods = x.mods.clone();
        mods.extend(y.mods.iter().cloned());
        let (ty, iv) = match op {
            BinOp::Add => {
                arith(self);
                match lit {
                    Some(k) => self.emit(Op::AddK { dst, a: ra, k }),
                    None => self.emit(Op::Add { dst, a: ra, b: rb }),
                };
                (Ty::Int, x.iv.add(y.iv))
            }
            BinOp::Sub => {
                arith(self);
                match lit {
                    Some(k) => self.emit(Op::AddK { dst, a: ra, k }),
                    None => self.emit(Op::Sub { dst, a: ra, b: rb }),
                };
                (Ty::Int, x.iv.sub(y.iv))
            }
            BinOp::Mul => {
                arith(self);
                self.emit(Op::Mul { dst, a: ra, b: rb });
                (Ty::Int, x.iv.mul(y.iv))
            }
            BinOp::Div | BinOp::Rem => {
                arith(self);
                if op == BinOp::Div {
                    self.emit(Op::Div { dst, a: ra, b: rb });
                } else {
                    self.emit(Op::Rem { dst, a: ra, b: rb });
                }
                (Ty::Int, Iv::ANY)
            }
            BinOp::Eq | BinOp::Ne => {
                if !x.ty.fits(&y.ty) {
                    let g = self.cx.env.group_names();
                    let m = format!("cannot compare {} with {}", x.ty.name(&g), y.ty.name(&g));
                    let mut d = err("E0301", a.span.to(b.span), m);
                    let hint = match (&x.ty, &y.ty) {
                        (t, Ty::Int) | (Ty::Int, t) => self.int_field_hint(t),
                        _ => None,
                    };
                    if let Some(h) = hint {
                        d = d.with_note(h);
                    }
                    self.error(d);
                }
                if op == BinOp::Eq {
                    self.emit(Op::Eq { dst, a: ra, b: rb });
                } else {
                    self.emit(Op::Ne { dst, a: ra, b: rb });
                }
                let known =
                    if x.ty == Ty::Int && y.ty == Ty::Int { compare_bounds(op, x.iv, y.iv) } else { None };
                (Ty::Bool, known_bool(known))
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                arith(self);
                let o = match op {
                    BinOp::Lt => Op::Lt { dst, a: ra, b: rb },
                    BinOp::Le => Op::Le { dst, a: ra, b: rb },
                    BinOp::Gt => Op::Gt { dst, a: ra, b: rb },
                    _ => Op::Ge { dst, a: ra, b: rb },
                };
                self.emit(o);
                (Ty::Bool, known_bool(compare_bounds(op, x.iv, y.iv)))
            }
            BinOp::And | BinOp::Or => unreachable_and_or(),
        };
        Out { reg: dst, ty, iv, mods }
    }

    fn field(&mut self, obj: &Expr, field: &Ident) -> Out {
        if let ExprKind::Name(n) = &obj.kind {
            if let Some(reg) = self.lookup_local(n).map(|l| l.reg) {
                if let Some(c) = self.field_cache.iter().rev().find(|c| c.0 == reg && c.1 == field.name) {
                    return c.2.clone();
                }
            }
        }
        let o = self.expr(obj);
        let dst = self.dst();
        let f = field.name.as_str();
        let (fld, ty, iv) = match (&o.ty, f) {
            (Ty::Unit, "hex") => (Field::Hex, Ty::Hex, Iv::ANY),
            (Ty::Unit, "side") => (Field::Side, Ty::Side, Iv::ANY),
            (Ty::Unit, "type") => (Field::UnitType, Ty::UnitType, Iv::ANY),
            (Ty::Unit, "steps") => (Field::Steps, Ty::Int, Iv::new(0, 255)),
            (Ty::Unit, "on_map") => (Field::OnMap, Ty::Bool, Iv::ANY),
            (Ty::Unit, "facing") => (Field::Facing, Ty::Int, Iv::new(0, 5)),
            (Ty::Unit, "vertex_facing") => (Field::VertexFacing, Ty::Bool, Iv::ANY),
            (Ty::Unit, "formation") => match self.cx.env.formation_group {
                Some(g) => (Field::Formation, Ty::Code(g), Iv::ANY),
                None => {
                    self.error(err("E0106", field.span, "no unit type declares `formations`"));
                    return Self::out(dst, Ty::Error, Iv::ANY);
                }
            },
            (Ty::Unit, name) => match self.cx.env.rating_index(name) {
                Some(r) => {
                    self.cx.env.used.insert(name.to_string());
                    let (_, lo, hi) = self.cx.env.ratings[r].clone();
                    (Field::Rating(r as u16), Ty::Int, Iv::new(lo, hi))
                }
                None => {
                    let mut cands: Vec<String> = self.cx.env.ratings.iter().map(|r| r.0.clone()).collect();
                    cands.extend(
                        ["hex", "side", "type", "steps", "on_map", "facing", "vertex_facing", "formation"]
                            .map(String::from),
                    );
                    let mut d =
                        err("E0106", field.span, format!("units have no rating or attribute `{name}`"));
                    if let Some(s) = suggest(name, cands.iter().map(|s| s.as_str())) {
                        d = d.with_note(format!("did you mean `{s}`?"));
                    }
                    self.error(d);
                    return Self::out(dst, Ty::Error, Iv::ANY);
                }
            },
            (Ty::Hex, "terrain") => (Field::Terrain, Ty::Terrain, Iv::ANY),
            (Ty::Hex, name) if self.cx.env.area_attrs.iter().any(|a| a.0 == name) => {
                let a = self.cx.env.area_attrs.iter().position(|a| a.0 == name).unwrap_or(0);
                (Field::AreaAttr(a as u16), self.cx.env.area_attrs[a].1.clone(), Iv::ANY)
            }
            (Ty::Terrain, name) => match self.cx.env.terrain_attrs.iter().position(|a| a.0 == name) {
                Some(a) => {
                    let ty = self.cx.env.terrain_attrs[a].1.clone();
                    (Field::TerrainAttr(a as u16), ty, Iv::ANY)
                }
                None => {
                    self.error(err("E0106", field.span, format!("terrain has no attribute `{name}`")));
                    return Self::out(dst, Ty::Error, Iv::ANY);
                }
            },
            (Ty::Code(g), name) if self.cx.env.decks.iter().any(|d| d.1 == *g) => {
                match self.cx.env.card_attrs.iter().position(|a| a.0 == name) {
                    Some(a) => (Field::CardAttr(a as u16), self.cx.env.card_attrs[a].1.clone(), Iv::ANY),
                    None => {
                        let cands: Vec<String> = self.cx.env.card_attrs.iter().map(|a| a.0.clone()).collect();
                        let mut d = err("E0106", field.span, format!("cards have no attribute `{name}`"));
                        if let Some(s) = suggest(name, cands.iter().map(|s| s.as_str())) {
                            d = d.with_note(format!("did you mean `{s}`?"));
                        }
                        self.error(d);
                        return Self::out(dst, Ty::Error, Iv::ANY);
                    }
                }
            }
            (Ty::Error, _) => return Self::out(dst, Ty::Error, Iv::ANY),
            (t, name) => {
                let g = self.cx.env.group_names();
                let m = format!("{} has no field `{name}`", t.name(&g));
                self.error(err("E0106", field.span, m));
                return Self::out(dst, Ty::Error, Iv::ANY);
            }
        };
        self.emit(Op::Field { dst, obj: o.reg, field: fld });
        // Bool terrain attributes are stored as 0/1; compare to make a Bool.
        if ty == Ty::Bool && matches!(fld, Field::TerrainAttr(_) | Field::AreaAttr(_) | Field::CardAttr(_)) {
            let zero = self.load(Value::Int(0));
            let b = self.temp();
            self.emit(Op::Ne { dst: b, a: dst, b: zero });
            return Self::out(b, Ty::Bool, Iv::ANY);
        }
        Self::out(dst, ty, iv)
    }

    fn index(&mut self, base: &Expr, a: &Expr, b: Option<&Expr>, span: Span) -> Out {
        let ExprKind::Name(n) = &base.kind else {
            self.error(err("E0301", base.span, "only tables and per-side tracks can be indexed"));
            return Self::out(self.temp(), Ty::Error, Iv::ANY);
        };
        if let Some(t) = self.cx.env.table_index(n) {
            self.cx.env.used.insert(n.clone());
            if self.cx.tables.get(t).map(|td| !td.odds.is_empty()).unwrap_or(false) {
                self.error(err(
                    "E0302",
                    span,
                    format!(
                        "table `{n}` has odds columns: write lookup_odds({n}, attack, defense, shift, roll)"
                    ),
                ));
                return Self::out(self.temp(), Ty::Error, Iv::ANY);
            }
            let has_cols = self
                .cx
                .tables
                .get(t)
                .map(|td| td.columns.len() > 1 || td.columns[0] != (i64::MIN, i64::MAX))
                .unwrap_or(true);
            let (col, row) = match (has_cols, b) {
                (true, Some(b)) => (Some(a), b),
                (false, None) => (None, a),
                (true, None) => {
                    self.error(err(
                        "E0302",
                        span,
                        format!("table `{n}` has columns: write {n}[column, roll]"),
                    ));
                    return Self::out(self.temp(), Ty::Error, Iv::ANY);
                }
                (false, Some(_)) => {
                    self.error(err("E0302", span, format!("table `{n}` has no columns: write {n}[roll]")));
                    return Self::out(self.temp(), Ty::Error, Iv::ANY);
                }
            };
            let col_r = match col {
                Some(c) => {
                    let o = self.expr(c);
                    self.expect_ty(&o, &Ty::Int, c.span, "column key");
                    o.reg
                }
                None => NO_REG,
            };
            let ro = self.expr(row);
            self.expect_ty(&ro, &Ty::Int, row.span, "roll");
            self.check_off_table(t, &ro, row.span);
            let dst = self.dst();
            self.emit(Op::Lookup { dst, table: t as u16, col: col_r, row: ro.reg, quiet: self.pure });
            let ty = self.cx.env.table_ty.get(t).cloned().unwrap_or(Ty::Error);
            return Self::out(dst, ty, Iv::ANY);
        }
        if let Some(hi) = self.cx.env.hands.iter().position(|h| &h.0 == n) {
            self.cx.env.used.insert(n.clone());
            if b.is_some() {
                self.error(err("E0301", span, format!("hand `{n}` is read with one side: {n}[side]")));
            }
            let s = self.expr(a);
            self.expect_ty(&s, &Ty::Side, a.span, "hand index");
            let dst = self.dst();
            self.emit(Op::HandGet { dst, hand: hi as u16, side: s.reg });
            let ty = self.cx.env.hands[hi].1.clone();
            return Self::out(dst, Ty::list(ty), Iv::ANY);
        }
        if let Some(ti) = self.cx.env.track_index(n) {
            self.cx.env.used.insert(n.clone());
            let (_, _, lo, hi) = self.cx.env.tracks[ti].clone();
            let arity = self.track_arity(ti);
            if arity != 1 + usize::from(b.is_some()) {
                let form = self.track_form(ti);
                self.error(err("E0301", span, format!("track `{n}` is read as {form}")));
            }
            if let (2, Some(b)) = (arity, b) {
                let Some((ti, ra, rb)) =
                    self.track_keys(&Ident { name: n.clone(), span: base.span }, &[a, b], span)
                else {
                    return Self::out(self.temp(), Ty::Int, Iv::new(lo, hi));
                };
                let dst = self.dst();
                self.emit(Op::TrackGet2 { dst, track: ti as u16, a: ra, b: rb });
                if let Some(t) = self.cx.env.track_holds_ty(ti) {
                    return Self::out(dst, t, Iv::ANY);
                }
                return Self::out(dst, Ty::Int, Iv::new(lo, hi));
            }
            let idx_ty = self.track_index_ty(ti);
            let s = self.expr(a);
            self.expect_ty(&s, &idx_ty, a.span, "track index");
            let dst = self.dst();
            self.emit(Op::TrackGet { dst, track: ti as u16, side: s.reg });
            if let Some(t) = self.cx.env.track_holds_ty(ti) {
                return Self::out(dst, t, Iv::ANY);
            }
            return Self::out(dst, Ty::Int, Iv::new(lo, hi));
        }
        let cands: Vec<String> =
            self.cx.env.tables.iter().chain(self.cx.env.tracks.iter().map(|t| &t.0)).cloned().collect();
        let mut d = err("E0108", base.span, format!("unknown table or track `{n}`"));
        if let Some(s) = suggest(n, cands.iter().map(|s| s.as_str())) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        self.error(d);
        Self::out(self.temp(), Ty::Error, Iv::ANY)
    }

    /// E0406: a roll whose modifiers can take it past a table's rows, when the table
    /// does not declare `beyond rows clamp`.
    fn check_off_table(&mut self, t: usize, roll: &Out, span: Span) {
        if let Some(r) = self.cx.row_reach.get_mut(t) {
            *r = r.join(roll.iv);
        }
        let Some(td) = self.cx.tables.get(t) else { return };
        if td.beyond_rows == Beyond::Clamp || td.rows.is_empty() || !roll.iv.is_known() {
            return;
        }
        let (lo, hi) = (td.rows[0].0, td.rows[td.rows.len() - 1].1);
        if !roll.iv.within(lo, hi) {
            let m = format!(
                "the roll can reach {} but table `{}` has rows {lo}..{hi} and no `beyond rows clamp`",
                roll.iv, td.name
            );
            let mut d = err("E0406", span, m).with_note(
                "a modifier pushes the roll off the table; clamp it, extend the rows, or cap the modifiers",
            );
            let tp = self.cx.table_paras.get(t).cloned().unwrap_or_default();
            d = d.with_paragraph(tp);
            for p in &roll.mods {
                d = d.with_paragraph(p.clone());
            }
            self.error(d);
        }
    }

    fn call_expr(&mut self, name: &Ident, args: &[Expr], span: Span) -> Out {
        // `unit("Name")`: a counter, resolved now.
        if name.name == "unit" {
            if let [Expr { kind: ExprKind::Str(s), span: sp }] = args {
                return match self.cx.env.counters.iter().position(|c| c == s) {
                    Some(i) => {
                        let r = self.load_result(Value::Unit(i as u16));
                        Self::out(r, Ty::Unit, Iv::ANY)
                    }
                    None => {
                        self.error(err("E0505", *sp, format!("no counter named {s:?}")));
                        Self::out(self.temp(), Ty::Error, Iv::ANY)
                    }
                };
            }
        }
        if let Some(sig) = self.cx.env.callables.get(&name.name).cloned() {
            self.cx.env.used.insert(name.name.clone());
            if sig.kind == CallableKind::Procedure {
                if sig.ret == Ty::Nil {
                    self.error(err(
                        "E0301",
                        span,
                        format!(
                            "`{}` is a procedure that returns no value: use `call {}(...)` as a statement",
                            name.name, name.name
                        ),
                    ));
                } else if self.pure {
                    self.error(
                        err(
                            "E0304",
                            span,
                            format!(
                                "procedure `{}` may change the game: not allowed in a {}",
                                name.name, self.what
                            ),
                        )
                        .with_note("call it where effects are allowed and pass its value to the pure code"),
                    );
                }
            }
            return self.call_user(&sig, name, args, span);
        }
        if name.name == "union" && args.len() == 2 {
            let x = self.expr(&args[0]);
            let y = self.expr(&args[1]);
            return self.list_pair(Builtin::Union, "`union`", &x, &y, span);
        }
        let Some(bi) = self.cx.builtins.iter().position(|b| b.name == name.name) else {
            let mut cands: Vec<String> = self.cx.env.callables.keys().cloned().collect();
            cands.extend(self.cx.builtins.iter().map(|b| b.name.to_string()));
            let mut d = err("E0109", name.span, format!("unknown function `{}`", name.name));
            if let Some(s) = suggest(&name.name, cands.iter().map(|s| s.as_str())) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            self.error(d);
            for a in args {
                self.expr(a);
            }
            return Self::out(self.temp(), Ty::Error, Iv::ANY);
        };
        let (b, params, ret, effect, iv) = {
            let s = &self.cx.builtins[bi];
            (s.b, s.params.clone(), s.ret.clone(), s.effect, s.iv)
        };
        if b == Builtin::LineOfSight && !self.cx.env.map_dims.areas.is_empty() {
            self.error(err(
                "E0509",
                name.span,
                "`line_of_sight` does not apply to an area map: areas have no lines across them",
            ));
        }
        if effect && self.pure {
            self.error(err(
                "E0304",
                span,
                format!("`{}` changes the game and is not allowed in a {}", name.name, self.what),
            ));
        }
        if args.len() != params.len() {
            self.error(err(
                "E0302",
                span,
                format!("`{}` takes {} argument(s), {} given", name.name, params.len(), args.len()),
            ));
            return Self::out(self.temp(), Ty::Error, Iv::ANY);
        }
        let mut regs = Vec::new();
        let mut ret = ret;
        let mut list_elem = Ty::Error;
        let mut ruling: Option<usize> = None;
        let mut mods = Vec::new();
        for (i, (p, a)) in params.iter().zip(args).enumerate() {
            let what = format!("argument {} of `{}`", i + 1, name.name);
            let r = match p {
                P::T(t) => {
                    let o = self.expr(a);
                    self.expect_ty(&o, t, a.span, &what);
                    if (b == Builtin::LookupShifted && i == 3) || (b == Builtin::LookupOdds && i == 4) {
                        if let Some(Value::Int(t)) = regs.first().and_then(|&(_, v)| v) {
                            self.check_off_table(t as usize, &o, a.span);
                        }
                    }
                    mods.extend(o.mods.iter().cloned());
                    (o.reg, None)
                }
                P::AnyList => {
                    let o = self.expr(a);
                    list_elem = self.elem_ty(&o, a.span);
                    (o.reg, None)
                }
                P::Any => {
                    let o = self.expr(a);
                    (o.reg, None)
                }
                P::Formation => {
                    let o = self.expr(a);
                    match self.cx.env.formation_group {
                        Some(g) => self.expect_ty(&o, &Ty::Code(g), a.span, &what),
                        None => {
                            self.error(err("E0306", a.span, format!("{what}: no `formations` are declared")))
                        }
                    }
                    (o.reg, None)
                }
                P::Mode => {
                    let o = self.expr(a);
                    match self.cx.env.mode_group {
                        Some(g) => self.expect_ty(&o, &Ty::Code(g), a.span, &what),
                        None => self.error(err(
                            "E0306",
                            a.span,
                            format!("{what}: no movement modes are declared (`movement NAME {{ ... }}`)"),
                        )),
                    }
                    (o.reg, None)
                }
                P::Elem => {
                    let o = self.expr(a);
                    self.expect_ty(&o, &list_elem.clone(), a.span, &what);
                    (o.reg, None)
                }
                _ => {
                    let ExprKind::Name(n) = &a.kind else {
                        self.error(err("E0301", a.span, format!("{what} must be a name")));
                        continue;
                    };
                    let idx = self.static_name(p, n, a.span, &mut ruling, &mut ret);
                    match idx {
                        Some(ix) => {
                            let v = Value::Int(ix as i64);
                            (self.load(v), Some(v))
                        }
                        None => continue,
                    }
                }
            };
            regs.push(r);
        }
        if regs.len() != params.len() {
            return Self::out(self.temp(), Ty::Error, Iv::ANY);
        }
        if b == Builtin::First {
            ret = list_elem.clone();
        }
        // A lookup in pure code is an evaluation, not an event: not logged.
        let b = match b {
            Builtin::LookupShifted if self.pure => Builtin::LookupShiftedQuiet,
            Builtin::LookupOdds if self.pure => Builtin::LookupOddsQuiet,
            other => other,
        };
        let dst = self.dst();
        let mut a = [NO_REG; 5];
        for (i, (r, _)) in regs.iter().take(5).enumerate() {
            a[i] = *r;
        }
        self.emit(Op::Builtin { b, dst, a, argc: regs.len().min(5) as u8 });
        Out { reg: dst, ty: ret, iv, mods }
    }

    /// Resolve a compile-time name argument of a built-in to its index.
    fn static_name(
        &mut self,
        p: &P,
        n: &str,
        span: Span,
        ruling: &mut Option<usize>,
        ret: &mut Ty,
    ) -> Option<usize> {
        let env = &mut *self.cx.env;
        let (found, kind, cands): (Option<usize>, &str, Vec<String>) = match p {
            P::Region => (env.regions.iter().position(|r| r == n), "region", env.regions.clone()),
            P::Feature => (env.hexsides.iter().position(|r| r == n), "hexside feature", env.hexsides.clone()),
            P::HexsideAttr => (
                env.hexside_attrs.iter().position(|r| r.0 == n),
                "hexside attribute",
                env.hexside_attrs.iter().map(|a| a.0.clone()).collect(),
            ),
            P::Flag => (env.flags.iter().position(|r| r == n), "scenario flag", env.flags.clone()),
            P::Phase => (env.phases.iter().position(|r| r == n), "phase", env.phases.clone()),
            P::OptionRule => (env.options.iter().position(|o| o == n), "optional rule", env.options.clone()),
            P::Cup => (
                env.cups.iter().position(|c| c.0 == n),
                "cup",
                env.cups.iter().map(|c| c.0.clone()).collect(),
            ),
            P::Deck => (
                env.decks.iter().position(|c| c.0 == n),
                "deck",
                env.decks.iter().map(|c| c.0.clone()).collect(),
            ),
            P::Ruling => {
                let f = env.rulings.iter().position(|r| r.0 == n);
                *ruling = f;
                (f, "ruling", env.rulings.iter().map(|r| r.0.clone()).collect())
            }
            P::Alt => match ruling {
                Some(r) => {
                    let alts = env.rulings[*r].1.clone();
                    (alts.iter().position(|a| a == n), "alternative", alts)
                }
                None => return None,
            },
            P::Table => {
                let f = env.table_index(n);
                if let Some(t) = f {
                    *ret = env.table_ty.get(t).cloned().unwrap_or(Ty::Error);
                }
                (f, "table", env.tables.clone())
            }
            P::StepFn | P::SideStepFn => {
                // A step cost: `fn (Unit, Hex, Hex) -> Int` for a unit's search, `fn (Side,
                // Hex, Hex) -> Int` for a search from a hex on a side's behalf.
                let (who, what) = match p {
                    P::StepFn => (Ty::Unit, "a fn (Unit, Hex, Hex) -> Int, a step cost"),
                    _ => (Ty::Side, "a fn (Side, Hex, Hex) -> Int, a side's step cost"),
                };
                let sig = env.callables.get(n).cloned();
                match sig {
                    Some(sig)
                        if sig.kind == CallableKind::Fn
                            && sig.params == [who, Ty::Hex, Ty::Hex]
                            && sig.ret == Ty::Int =>
                    {
                        env.used.insert(n.to_string());
                        return Some(sig.id as usize);
                    }
                    Some(_) => {
                        self.error(err("E0301", span, format!("`{n}` must be {what}")));
                        return None;
                    }
                    None => (None, "fn", env.callables.keys().cloned().collect()),
                }
            }
            P::T(_) | P::AnyList | P::Elem | P::Any | P::Formation | P::Mode => return None,
        };
        if found.is_some() {
            env.used.insert(n.to_string());
        }
        if found.is_some() && matches!(p, P::Phase) {
            // The runtime compares the phase's name as `PhaseBegin` records it.
            return Some(self.cx.string(n) as usize);
        }
        if found.is_none() {
            let code = match p {
                P::Phase => "E0602",
                P::Region => "E0112",
                P::Feature | P::HexsideAttr => "E0111",
                P::Table => "E0108",
                P::Cup => "E0115",
                P::Deck => "E0199",
                P::StepFn | P::SideStepFn => "E0109",
                _ => "E0114",
            };
            let mut d = err(code, span, format!("unknown {kind} `{n}`"));
            if let Some(s) = suggest(n, cands.iter().map(|s| s.as_str())) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            self.error(d);
        }
        found
    }

    /// Patch the `break`s of the innermost loop to jump here, its exit.
    fn close_loop(&mut self) {
        if let Some((breaks, _)) = self.loops.pop() {
            let h = self.here();
            for j in breaks {
                self.patch(j, h);
            }
        }
    }

    /// `a + b` of lists, `union(a, b)`: two lists of one element type, a list of it.
    fn list_pair(&mut self, b: Builtin, what: &str, x: &Out, y: &Out, span: Span) -> Out {
        let g = self.cx.env.group_names();
        let ok = match (&x.ty, &y.ty) {
            (Ty::List(_), Ty::List(_)) => x.ty.fits(&y.ty) || y.ty.fits(&x.ty),
            (Ty::Error, _) | (_, Ty::Error) => true,
            _ => false,
        };
        if !ok {
            let m =
                format!("{what} needs two lists of one type, found {} and {}", x.ty.name(&g), y.ty.name(&g));
            self.error(err("E0301", span, m));
            return Self::out(self.temp(), Ty::Error, Iv::ANY);
        }
        let dst = self.dst();
        let mut a = [NO_REG; 5];
        a[0] = x.reg;
        a[1] = y.reg;
        self.emit(Op::Builtin { b, dst, a, argc: 2 });
        Self::out(dst, x.ty.clone().join(y.ty.clone()), Iv::ANY)
    }

    /// The number of keys of a track: 0 (plain), 1 or 2.
    fn track_arity(&self, ti: usize) -> usize {
        let keyed = self.cx.env.tracks.get(ti).map(|t| t.1).unwrap_or(false);
        let second = self.cx.env.track_second.get(ti).map(|s| s.is_some()).unwrap_or(false);
        usize::from(keyed) + usize::from(second)
    }

    /// How a track is written with its keys, for messages: `t`, `t[side]`, `t[side, Border]`.
    fn track_form(&self, ti: usize) -> String {
        let g = self.cx.env.group_names();
        let name = self.cx.env.tracks.get(ti).map(|t| t.0.clone()).unwrap_or_default();
        let key = |t: Ty| match t {
            Ty::Side => "side".to_string(),
            Ty::Unit => "unit".to_string(),
            Ty::Hex => "hex".to_string(),
            // `per border`: indexed by `border(a, b)`.
            Ty::Int => "border(a, b)".to_string(),
            other => other.name(&g),
        };
        match self.track_arity(ti) {
            0 => name,
            1 => format!("{name}[{}]", key(self.track_index_ty(ti))),
            _ => format!("{name}[{}, {}]", key(self.track_index_ty(ti)), key(self.track_key2_ty(ti))),
        }
    }

    /// The type of a track's second key.
    fn track_key2_ty(&self, ti: usize) -> Ty {
        match self.cx.env.track_second.get(ti) {
            Some(Some(TrackKey::Side)) => Ty::Side,
            Some(Some(TrackKey::Unit)) => Ty::Unit,
            Some(Some(TrackKey::Group(g))) => match self.cx.env.groups.iter().position(|x| x.0 == g.name) {
                Some(gi) => Ty::Code(gi),
                None => Ty::Error,
            },
            _ => Ty::Error,
        }
    }

    /// Compile a track's keys: their registers (NO_REG where absent), or None after an
    /// error (E0113 unknown track, E0301 wrong number or type of keys).
    fn track_keys(&mut self, track: &Ident, keys: &[&Expr], span: Span) -> Option<(usize, Reg, Reg)> {
        let Some(ti) = self.cx.env.track_index(&track.name) else {
            let cands: Vec<String> = self.cx.env.tracks.iter().map(|t| t.0.clone()).collect();
            let mut d = err("E0113", track.span, format!("unknown track `{}`", track.name));
            if let Some(s) = suggest(&track.name, cands.iter().map(|s| s.as_str())) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            self.error(d);
            return None;
        };
        self.cx.env.used.insert(track.name.clone());
        let arity = self.track_arity(ti);
        if keys.len() != arity {
            let form = self.track_form(ti);
            let m = format!("track `{}` has {arity} key(s), {} given: write {form}", track.name, keys.len());
            self.error(err("E0301", span, m));
            return None;
        }
        let mut regs = [NO_REG; 2];
        for (i, k) in keys.iter().enumerate() {
            let want = if i == 0 { self.track_index_ty(ti) } else { self.track_key2_ty(ti) };
            let o = self.expr(k);
            self.expect_ty(&o, &want, k.span, "track key");
            // Keys are kept in their own registers: the value is computed after them.
            let r = self.temp();
            self.emit(Op::Mov { dst: r, src: o.reg });
            regs[i] = r;
        }
        Some((ti, regs[0], regs[1]))
    }

    /// `set t[..] = v;` or (with `add`) `adjust t[a, b] by v;`.
    fn track_put(&mut self, track: &Ident, keys: &[&Expr], value: &Expr, add: bool, span: Span) {
        let what = if add { "`adjust`" } else { "`set` of a track" };
        if !self.effect_allowed(span, what) {
            return;
        }
        let Some((ti, a, b)) = self.track_keys(track, keys, span) else { return };
        if add && self.refuse_adjust(ti, track, span) {
            return;
        }
        let held = self.cx.env.track_holds_ty(ti);
        let v = self.expr(value);
        let want = held.unwrap_or(Ty::Int);
        self.expect_ty(&v, &want, value.span, if add { "adjustment" } else { "track value" });
        self.emit(Op::TrackPut { track: ti as u16, a, b, v: v.reg, add });
    }

    /// `clear t;` / `clear t[k];`: a track of references emptied.
    fn track_clear(&mut self, track: &Ident, keys: &[&Expr], span: Span) {
        if !self.effect_allowed(span, "`clear`") {
            return;
        }
        let Some((ti, a, b)) = self.track_keys(track, keys, span) else { return };
        if self.cx.env.track_holds_ty(ti).is_none() {
            let m = format!(
                "track `{}` holds numbers: `clear` empties a track of references; use `set`",
                track.name
            );
            self.error(err("E0301", span, m));
            return;
        }
        let v = self.load(Value::Nil);
        self.emit(Op::TrackPut { track: ti as u16, a, b, v, add: false });
    }

    /// E0301 for `adjust` of a track of references (true: refused).
    fn refuse_adjust(&mut self, ti: usize, track: &Ident, span: Span) -> bool {
        let Some(t) = self.cx.env.track_holds_ty(ti) else { return false };
        let g = self.cx.env.group_names();
        let m = format!("track `{}` holds a {}: `set` it or `clear` it", track.name, t.name(&g));
        self.error(err("E0301", span, m));
        true
    }

    /// The type a track is indexed by: a unit, a side, or a code of its `results` group.
    fn track_index_ty(&self, ti: usize) -> Ty {
        if self.cx.env.track_per_unit.get(ti).copied().unwrap_or(false) {
            return Ty::Unit;
        }
        match self.cx.env.track_key.get(ti) {
            Some(kriegsspiel_runtime::program::SpaceKey::Space) => return Ty::Hex,
            Some(kriegsspiel_runtime::program::SpaceKey::Border) => return Ty::Int,
            _ => {}
        }
        if let Some(Some(g)) = self.cx.env.track_group.get(ti) {
            if let Some(gi) = self.cx.env.groups.iter().position(|x| x.0 == g.name) {
                return Ty::Code(gi);
            }
            return Ty::Error;
        }
        Ty::Side
    }

    /// Emit `Ret` of a register.
    pub fn ret(&mut self, r: Reg) {
        self.emit(Op::Ret { src: r });
    }

    /// Compile a modifier set's body: params already declared, then the base value.
    pub fn modifiers(&mut self, m: &Modifiers) -> (ModRange, Vec<String>) {
        let base = self.locals.last().map(|l| l.reg).unwrap_or(0);
        let num = self.load(Value::Int(1));
        let den = self.load(Value::Int(1));
        let add = self.load(Value::Int(0));
        // `best`: the greatest applicable addition; none applicable adds 0.
        let seen = self.load(Value::Bool(false));
        let mut lo = 0i64;
        let mut hi = 0i64;
        let mut paras = vec![self.para_text()];
        self.mod_set = Some(ModSet { lines: Vec::new(), best: m.best_only });
        for (index, line) in m.lines.iter().enumerate() {
            let saved = self.span;
            self.span = line.span;
            let keep = self.next;
            self.with_anchor(&line.anchor, |me| {
                let c = me.expr(&line.when);
                me.expect_ty(&c, &Ty::Bool, line.when.span, "modifier condition");
                if c.ty == Ty::Bool && c.iv == Iv::exact(0) {
                    me.error(
                        Diagnostic::warning(
                            "W0009",
                            line.when.span,
                            "this modifier line never applies: its condition is false for every value its terms can take",
                        )
                        .with_note("the bounds come from the ratings' and tracks' declared ranges and the literals; check the number, or the range"),
                    );
                }
                let jf = me.emit(Op::JumpIfNot { cond: c.reg, to: 0 });
                let line_no = index.min(u16::MAX as usize) as u16;
                match &line.effect {
                    ModEffect::Mul { num: n, den: d } => {
                        let rn = me.load(Value::Int(*n));
                        let rd = me.load(Value::Int(*d));
                        me.emit(Op::Mul { dst: num, a: num, b: rn });
                        me.emit(Op::Mul { dst: den, a: den, b: rd });
                        me.emit(Op::ModApplied { line: line_no, amt: NO_REG });
                        let effect = if *d == 1 { format!("x{n}") } else { format!("x{n}/{d}") };
                        me.mod_set
                            .get_or_insert_with(ModSet::default)
                            .lines
                            .push(ModLine { para: me.para, effect });
                    }
                    ModEffect::Add { negative, amount } => {
                        let (r, iv) = match amount {
                            AddAmount::Int(i) => (me.load(Value::Int(*i)), Iv::exact(*i)),
                            AddAmount::Name(id) => {
                                let e = Expr { kind: ExprKind::Name(id.name.clone()), span: id.span };
                                let o = me.expr(&e);
                                me.expect_ty(&o, &Ty::Int, id.span, "modifier amount");
                                (o.reg, o.iv)
                            }
                        };
                        let iv = if *negative { iv.neg() } else { iv };
                        lo = lo.saturating_add(iv.lo.min(0));
                        hi = hi.saturating_add(iv.hi.max(0));
                        let sign = if *negative { "-" } else { "+" };
                        let effect = match amount {
                            AddAmount::Int(i) => format!("{sign}{i}"),
                            AddAmount::Name(id) => format!("{sign}{}", id.name),
                        };
                        me.mod_set
                            .get_or_insert_with(ModSet::default)
                            .lines
                            .push(ModLine { para: me.para, effect });
                        if m.best_only {
                            let t = me.temp();
                            if *negative {
                                me.emit(Op::Neg { dst: t, a: r });
                            } else {
                                me.emit(Op::Mov { dst: t, src: r });
                            }
                            let first = me.emit(Op::JumpIf { cond: seen, to: 0 });
                            me.emit(Op::Mov { dst: add, src: t });
                            let kt = me.cx.konst(Value::Bool(true));
                            me.emit(Op::Const { dst: seen, k: kt });
                            let done = me.emit(Op::Jump { to: 0 });
                            let h = me.here();
                            me.patch(first, h);
                            me.emit(Op::Builtin {
                                b: Builtin::Max,
                                dst: add,
                                a: [add, t, NO_REG, NO_REG, NO_REG],
                                argc: 2,
                            });
                            let h = me.here();
                            me.patch(done, h);
                        } else if *negative {
                            me.emit(Op::Sub { dst: add, a: add, b: r });
                        } else {
                            me.emit(Op::Add { dst: add, a: add, b: r });
                        }
                        me.emit(Op::ModApplied { line: line_no, amt: r });
                    }
                }
                let h = me.here();
                me.patch(jf, h);
                let p = me.para_text();
                if !paras.contains(&p) {
                    paras.push(p);
                }
            });
            self.next = keep;
            self.span = saved;
        }
        // result = round(base * num / den) + add, capped.
        let prod = self.temp();
        self.emit(Op::Mul { dst: prod, a: base, b: num });
        let res = self.temp();
        match m.round {
            Some((RoundDir::Up, _)) => {
                self.emit(Op::Builtin {
                    b: Builtin::CeilDiv,
                    dst: res,
                    a: [prod, den, NO_REG, NO_REG, NO_REG],
                    argc: 2,
                });
            }
            _ => {
                self.emit(Op::Div { dst: res, a: prod, b: den });
            }
        }
        self.emit(Op::Add { dst: res, a: res, b: add });
        let has_mul = m.lines.iter().any(|l| matches!(l.effect, ModEffect::Mul { .. }));
        let iv = if has_mul { Iv::ANY } else { Iv::new(lo, hi) };
        if let Some(cap) = m.cap {
            for (bi, bound) in [(Builtin::Max, cap.lo), (Builtin::Min, cap.hi)] {
                let b2 = self.load(Value::Int(bound));
                self.emit(Op::Builtin { b: bi, dst: res, a: [res, b2, NO_REG, NO_REG, NO_REG], argc: 2 });
            }
        }
        self.emit(Op::Ret { src: res });
        (ModRange { iv, cap: m.cap.map(|c| (c.lo, c.hi)) }, paras)
    }
}

/// What a loop iterates: a list register, or the units of the hex in a register
/// (with the span of the `units_at` call).
#[derive(Clone, Copy)]
enum Src {
    List(Reg),
    At(Reg, Span),
}

impl From<Reg> for Src {
    fn from(r: Reg) -> Src {
        Src::List(r)
    }
}

/// What the bounds of two Int operands decide about a comparison: `Some(b)` when it is
/// `b` for every pair of values within them (the modifier check W0009 reads it).
fn compare_bounds(op: BinOp, x: Iv, y: Iv) -> Option<bool> {
    let (always, never) = match op {
        BinOp::Lt => (x.hi < y.lo, x.lo >= y.hi),
        BinOp::Le => (x.hi <= y.lo, x.lo > y.hi),
        BinOp::Gt => (x.lo > y.hi, x.hi <= y.lo),
        BinOp::Ge => (x.lo >= y.hi, x.hi < y.lo),
        BinOp::Eq | BinOp::Ne => {
            let disjoint = x.hi < y.lo || y.hi < x.lo;
            let same = x.lo == x.hi && y.lo == y.hi && x.lo == y.lo && x.is_known();
            if op == BinOp::Eq {
                (same, disjoint)
            } else {
                (disjoint, same)
            }
        }
        _ => (false, false),
    };
    if always {
        Some(true)
    } else if never {
        Some(false)
    } else {
        None
    }
}

/// A Bool result's bounds: 1..1 always true, 0..0 never, unknown otherwise.
fn known_bool(k: Option<bool>) -> Iv {
    match k {
        Some(b) => Iv::exact(b as i64),
        None => Iv::ANY,
    }
}

fn unreachable_and_or() -> (Ty, Iv) {
    (Ty::Error, Iv::ANY)
}

impl<'a> Cx<'a> {
    /// Map size for hex literals in code.
    pub fn env_map_dims(&self) -> &crate::map::Dims {
        &self.env.map_dims
    }
}
