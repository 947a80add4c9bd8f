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

/// A pure `Bool` condition over `params` (E0303 if it is not `Bool`), compiled as the
/// function `name`: triggers', interrupts' and invariants' conditions. `noun` names it
/// in messages ("an invariant").
fn condition(
    cx: &mut Cx,
    para: &str,
    params: &[(&str, Ty)],
    cond: &Expr,
    noun: &'static str,
    name: &str,
) -> Function {
    let what = noun.split_once(' ').map(|x| x.1).unwrap_or(noun);
    let mut fc = FnCx::new(cx, para, cond.span, true, what);
    for (p, t) in params {
        fc.param(p, t.clone());
    }
    let o = fc.expr(cond);
    if !o.ty.fits(&Ty::Bool) {
        fc.cx.diags.push(
            Diagnostic::error("E0303", cond.span, format!("{noun} must be Bool"))
                .with_paragraph(para.to_string()),
        );
    }
    fc.ret(o.reg);
    fc.finish(name, FnKind::Trigger, params.len() as u16)
}

/// Compile every trigger, interrupt and invariant into functions and their tables.
pub(crate) fn compile_points(
    cx: &mut Cx,
    decls: &[crate::layers::DeclRef<'_>],
    functions: &mut Vec<Function>,
    prog: &mut Program,
) {
    // Triggers: a condition fn and a body procedure each.
    for d in decls {
        if let DeclKind::Trigger { name, once, chained, when, body } = &d.kind {
            let para = first_para(d);
            let cond = condition(cx, &para, &[], when, "a trigger condition", &format!("{}?", name.name));
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
                chained: *chained,
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
            let named: Vec<(&str, Ty)> =
                params.iter().map(|p| p.name.name.as_str()).zip(want.iter().cloned()).collect();
            let cond =
                condition(cx, &para, &named, when, "an interrupt condition", &format!("{}?", name.name));
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
pub(crate) fn phase_names(decls: &[crate::layers::DeclRef<'_>]) -> BTreeSet<String> {
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
        kind: ExprKind::Quant {
            q: Quant::Filter,
            var: var.clone(),
            iter: iter.clone(),
            filter: Some(Box::new(keep)),
            body: None,
        },
        span,
    })
}

/// Invariants: a condition fn over the check point's values, and for `all` conditions
/// a fn listing the elements that break it.
fn compile_invariants(
    cx: &mut Cx,
    decls: &[crate::layers::DeclRef<'_>],
    functions: &mut Vec<Function>,
    prog: &mut Program,
) {
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
                                format!(
                                    "no `phase {}` statement: invariant `{}` would never be checked",
                                    p.name, name.name
                                ),
                            )
                            .with_note(format!(
                                "phases: {}",
                                if known.is_empty() { "none".into() } else { known.join(", ") }
                            ))
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
        let before = cx.diags.len();
        let named: Vec<(&str, Ty)> = params.iter().map(|(p, t)| (p.name.as_str(), t.clone())).collect();
        let cf = condition(cx, &para, &named, cond, "an invariant", &name.name);
        let ci = functions.len() as u32;
        functions.push(cf);
        // The witness list re-reads the condition's parts: compiled only when the
        // condition compiled cleanly, and its diagnostics (repeats) are dropped.
        let clean = !cx.diags[before..].iter().any(|d| d.is_error());
        let witnesses = witness_expr(cond).filter(|_| clean).map(|w| {
            let keep = cx.diags.len();
            let mut fc = FnCx::new(cx, &para, cond.span, true, "invariant");
            for (p, t) in &named {
                fc.param(p, t.clone());
            }
            let o = fc.expr(&w);
            fc.ret(o.reg);
            let wf = fc.finish(&format!("{}!", name.name), FnKind::Trigger, named.len() as u16);
            cx.diags.truncate(keep);
            functions.push(wf);
            (functions.len() - 1) as u32
        });
        let paras = d.anchors.iter().map(|a| cx.env.para(&a.text)).collect();
        prog.invariants.push(InvariantDef {
            name: name.name.clone(),
            text: text.clone(),
            at,
            cond: ci,
            witnesses,
            paras,
        });
    }
}
