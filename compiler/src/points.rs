//! The rules that run at points of play rather than when called: triggers (after a
//! change, when a condition becomes true), interrupts (after a move between map hexes)
//! and invariants (a rule's "must", checked where the declaration says).

use crate::func::{Cx, FnCx};
use crate::types::Ty;
use kriegsspiel_dsl::ast::*;
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::program::*;
use std::collections::BTreeSet;

fn first_para(d: &Decl) -> String {
    d.anchors.first().map(|a| a.text.clone()).unwrap_or_default()
}

/// Compile every trigger, interrupt and invariant into functions and their tables.
pub(crate) fn compile_points(cx: &mut Cx, decls: &[Decl], functions: &mut Vec<Function>, prog: &mut Program) {
    // Triggers: a condition fn and a body procedure each.
    for d in decls {
        if let DeclKind::Trigger { name, once, when, body } = &d.kind {
            let para = first_para(d);
            let mut fc = FnCx::new(cx, &para, when.span, true, "trigger condition");
            let o = fc.expr(when);
            if !o.ty.fits(&Ty::Bool) {
                fc.cx.diags.push(
                    Diagnostic::error("E0303", when.span, "a trigger condition must be Bool")
                        .with_paragraph(para.clone()),
                );
            }
            fc.ret(o.reg);
            let cond = fc.finish(&format!("{}?", name.name), FnKind::Trigger, 0);
            let mut fc = FnCx::new(cx, &para, body.span, false, "procedure");
            fc.block(body);
            let b = fc.finish(&name.name, FnKind::Procedure, 0);
            let ci = functions.len() as u32;
            functions.push(cond);
            functions.push(b);
            let p = cx.env.para(&para);
            prog.triggers.push(TriggerDef {
                name: name.name.clone(),
                once: *once,
                cond: ci,
                body: ci + 1,
                para: p,
            });
        }
    }

    // Interrupts: a condition fn and a body procedure each, over (Unit, Hex, Hex).
    for d in decls {
        if let DeclKind::Interrupt { name, params, when, body } = &d.kind {
            let para = first_para(d);
            let want = [Ty::Unit, Ty::Hex, Ty::Hex];
            let tys: Vec<Ty> = params.iter().map(|p| cx.env.ty(&p.ty).unwrap_or(Ty::Error)).collect();
            if tys != want {
                cx.diags.push(
                    Diagnostic::error(
                        "E0601",
                        name.span,
                        format!("interrupt `{}` must take (mover: Unit, from: Hex, dest: Hex)", name.name),
                    )
                    .with_paragraph(para.clone()),
                );
                continue;
            }
            let mut fc = FnCx::new(cx, &para, when.span, true, "interrupt condition");
            for (p, t) in params.iter().zip(&want) {
                fc.param(&p.name.name, t.clone());
            }
            let o = fc.expr(when);
            if !o.ty.fits(&Ty::Bool) {
                fc.cx.diags.push(
                    Diagnostic::error("E0303", when.span, "an interrupt condition must be Bool")
                        .with_paragraph(para.clone()),
                );
            }
            fc.ret(o.reg);
            let cond = fc.finish(&format!("{}?", name.name), FnKind::Trigger, 3);
            let mut fc = FnCx::new(cx, &para, body.span, false, "procedure");
            for (p, t) in params.iter().zip(&want) {
                fc.param(&p.name.name, t.clone());
            }
            fc.block(body);
            let b = fc.finish(&name.name, FnKind::Procedure, 3);
            let ci = functions.len() as u32;
            functions.push(cond);
            functions.push(b);
            let p = cx.env.para(&para);
            prog.interrupts.push(InterruptDef { name: name.name.clone(), cond: ci, body: ci + 1, para: p });
        }
    }

    compile_invariants(cx, decls, functions, prog);
}

/// The phase names that some `phase NAME(...)` statement starts, anywhere.
fn phase_names(decls: &[Decl]) -> BTreeSet<String> {
    fn walk(b: &Block, out: &mut BTreeSet<String>) {
        for s in &b.stmts {
            match &s.kind {
                StmtKind::Phase { name, body, .. } => {
                    out.insert(name.name.clone());
                    walk(body, out);
                }
                StmtKind::If { then, els, .. } => {
                    walk(then, out);
                    if let Some(e) = els {
                        walk(e, out);
                    }
                }
                StmtKind::For { body, .. } | StmtKind::While { body, .. } | StmtKind::Turns { body, .. } => {
                    walk(body, out)
                }
                _ => {}
            }
        }
    }
    let mut out = BTreeSet::new();
    for d in decls {
        match &d.kind {
            DeclKind::Procedure { body, .. } | DeclKind::Sequence(body) => walk(body, &mut out),
            DeclKind::Trigger { body, .. } | DeclKind::Interrupt { body, .. } => walk(body, &mut out),
            _ => {}
        }
    }
    out
}

/// The list of elements that break `all x in L [where W]: C`, as `filter x in L where
/// [W and] not C`; `None` for any other condition.
fn witness_expr(cond: &Expr) -> Option<Expr> {
    let ExprKind::Quant { q: Quant::All, var, iter, filter, body: Some(body) } = &cond.kind else {
        return None;
    };
    let span = cond.span;
    let broken = Expr { kind: ExprKind::Not(body.clone()), span: body.span };
    let keep = match filter {
        Some(w) => Expr { kind: ExprKind::Binary(BinOp::And, w.clone(), Box::new(broken)), span },
        None => broken,
    };
    Some(Expr {
        kind: ExprKind::Quant { q: Quant::Filter, var: var.clone(), iter: iter.clone(), filter: Some(Box::new(keep)), body: None },
        span,
    })
}

/// Invariants: a condition fn over the check point's values, and for `all` conditions
/// a fn listing the elements that break it.
fn compile_invariants(cx: &mut Cx, decls: &[Decl], functions: &mut Vec<Function>, prog: &mut Program) {
    let phases = phase_names(decls);
    for d in decls {
        let DeclKind::Invariant { name, text, point, cond } = &d.kind else { continue };
        let para = first_para(d);
        if !cx.env.declare("invariant", name, cx.diags, &para) {
            continue;
        }
        let (at, params): (CheckAt, Vec<(&Ident, Ty)>) = match point {
            CheckPoint::Phase { after, phase, side } => {
                let id = match phase {
                    Some(p) if !phases.contains(&p.name) => {
                        let mut known: Vec<&str> = phases.iter().map(String::as_str).collect();
                        known.truncate(20);
                        cx.diags.push(
                            Diagnostic::error(
                                "E0602",
                                p.span,
                                format!("no `phase {}` statement: invariant `{}` would never be checked", p.name, name.name),
                            )
                            .with_note(format!("phases: {}", if known.is_empty() { "none".into() } else { known.join(", ") }))
                            .with_paragraph(para.clone()),
                        );
                        continue;
                    }
                    Some(p) => Some(cx.string(&p.name)),
                    None => None,
                };
                let at = if *after { CheckAt::AfterPhase(id) } else { CheckAt::BeforePhase(id) };
                (at, vec![(side, Ty::Side)])
            }
            CheckPoint::Move { unit, from, to } => {
                (CheckAt::AfterMove, vec![(unit, Ty::Unit), (from, Ty::Hex), (to, Ty::Hex)])
            }
            CheckPoint::Turn => (CheckAt::AfterTurn, vec![]),
        };
        let n = params.len() as u16;
        let mut fc = FnCx::new(cx, &para, cond.span, true, "invariant");
        for (p, t) in &params {
            fc.param(&p.name, t.clone());
        }
        let o = fc.expr(cond);
        if !o.ty.fits(&Ty::Bool) {
            fc.cx.diags.push(
                Diagnostic::error("E0303", cond.span, "an invariant must be Bool").with_paragraph(para.clone()),
            );
        }
        fc.ret(o.reg);
        let cf = fc.finish(&name.name, FnKind::Trigger, n);
        let ci = functions.len() as u32;
        functions.push(cf);
        let witnesses = witness_expr(cond).map(|w| {
            let mut fc = FnCx::new(cx, &para, cond.span, true, "invariant");
            for (p, t) in &params {
                fc.param(&p.name, t.clone());
            }
            let o = fc.expr(&w);
            fc.ret(o.reg);
            let wf = fc.finish(&format!("{}!", name.name), FnKind::Trigger, n);
            functions.push(wf);
            (functions.len() - 1) as u32
        });
        let paras = d.anchors.iter().map(|a| cx.env.para(&a.text)).collect();
        prog.invariants.push(InvariantDef { name: name.name.clone(), text: text.clone(), at, cond: ci, witnesses, paras });
    }
}
