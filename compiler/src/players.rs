//! `players`, `teams` and `control` declarations (docs/language.md 6.1b-6.1d): checked
//! and compiled into `Program::players`, `teams` and `controls`.

use crate::collect::first_para;
use crate::env::CallableKind;
use crate::func::Cx;
use crate::types::Ty;
use kriegsspiel_dsl::ast::*;
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::players::{ControlDef, PlayerCountDef, PlayersDef, TeamDef};
use kriegsspiel_runtime::Program;

/// The index of a side named in a declaration, or E0105.
fn side(cx: &mut Cx, id: &Ident, para: &str) -> Option<u8> {
    match cx.env.sides.iter().position(|s| *s == id.name) {
        Some(i) => {
            cx.env.used.insert(id.name.clone());
            Some(i as u8)
        }
        None => {
            let mut d = Diagnostic::error("E0105", id.span, format!("unknown side `{}`", id.name))
                .with_paragraph(para.to_string());
            if let Some(s) = crate::env::suggest(&id.name, cx.env.sides.iter().map(|s| s.as_str())) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            cx.diags.push(d);
            None
        }
    }
}

fn e0511(cx: &mut Cx, span: Span, msg: String, para: &str, note: &str) {
    cx.diags.push(
        Diagnostic::error("E0511", span, msg).with_paragraph(para.to_string()).with_note(note.to_string()),
    );
}

pub fn compile_players(cx: &mut Cx, decls: &[crate::layers::DeclRef<'_>], prog: &mut Program) {
    let n_sides = cx.env.sides.len();
    let mut players_seen: Option<Span> = None;
    for d in decls {
        let para = first_para(d);
        match &d.kind {
            DeclKind::Players(counts) => {
                if let Some(prev) = players_seen {
                    cx.diags.push(
                        Diagnostic::error("E0101", d.span, "`players` is declared twice")
                            .with_label(prev, "first declared here")
                            .with_paragraph(para.clone()),
                    );
                    continue;
                }
                players_seen = Some(d.span);
                let mut out = Vec::new();
                for c in counts {
                    let mut players = Vec::new();
                    let mut seated = vec![false; n_sides];
                    for group in &c.players {
                        let mut sides = Vec::new();
                        for id in group {
                            let Some(s) = side(cx, id, &para) else { continue };
                            if seated[s as usize] {
                                e0511(
                                    cx,
                                    id.span,
                                    format!("with {} players, side `{}` is seated twice", c.count, id.name),
                                    &para,
                                    "each side is run by exactly one player",
                                );
                            }
                            seated[s as usize] = true;
                            sides.push(s);
                        }
                        players.push(sides);
                    }
                    let missing: Vec<&str> =
                        (0..n_sides).filter(|&i| !seated[i]).map(|i| cx.env.sides[i].as_str()).collect();
                    if !missing.is_empty() {
                        let msg = format!("with {} players, no player runs {}", c.count, missing.join(", "));
                        e0511(cx, c.span, msg, &para, "each side is run by exactly one player");
                    }
                    if c.count < 1 || c.count > 255 || c.count as usize != c.players.len() {
                        let msg = format!("player count {} lists {} players", c.count, c.players.len());
                        e0511(
                            cx,
                            c.span,
                            msg,
                            &para,
                            "write one `[sides]` group per player: `3 { [A, B] [C] [D] }`",
                        );
                    }
                    if out.iter().any(|x: &PlayerCountDef| x.count as i64 == c.count) {
                        let msg = format!("player count {} is given twice", c.count);
                        e0511(cx, c.span, msg, &para, "give each player count once");
                    }
                    out.push(PlayerCountDef { count: c.count.clamp(0, 255) as u8, players });
                }
                prog.players = Some(PlayersDef { counts: out, para: cx.env.para(&para) });
            }
            DeclKind::Teams(teams) => {
                for (name, members) in teams {
                    if !cx.env.declare("team", name, cx.diags, &para) {
                        continue;
                    }
                    let mut sides = Vec::new();
                    for id in members {
                        let Some(s) = side(cx, id, &para) else { continue };
                        if let Some(t) = prog.teams.iter().find(|t| t.sides.contains(&s)) {
                            let msg = format!("side `{}` is already on team {}", id.name, t.name);
                            e0511(cx, id.span, msg, &para, "a side belongs to at most one team");
                            continue;
                        }
                        if !sides.contains(&s) {
                            sides.push(s);
                        }
                    }
                    let p = cx.env.para(&para);
                    prog.teams.push(TeamDef { name: name.name.clone(), sides, para: p });
                }
            }
            DeclKind::Control { group, func } => {
                let Some(g) = cx.env.groups.iter().position(|(n, _)| *n == group.name) else {
                    cx.diags.push(
                        Diagnostic::error("E0102", group.span, format!("unknown type `{}`", group.name))
                            .with_paragraph(para.clone())
                            .with_note("control is declared for a `results` group: `results Power { ... }`"),
                    );
                    continue;
                };
                if !cx.env.declare("control", group, cx.diags, &para) {
                    continue;
                }
                cx.env.used.insert(group.name.clone());
                let Some(sig) = cx.env.callables.get(&func.name).cloned() else {
                    cx.diags.push(
                        Diagnostic::error("E0109", func.span, format!("unknown function `{}`", func.name))
                            .with_paragraph(para.clone()),
                    );
                    continue;
                };
                cx.env.used.insert(func.name.clone());
                if sig.kind != CallableKind::Fn || sig.params != [Ty::Code(g)] || sig.ret != Ty::Side {
                    cx.diags.push(
                        Diagnostic::error(
                            "E0601",
                            func.span,
                            format!("`{}` must be `fn ({}) -> Side`", func.name, group.name),
                        )
                        .with_paragraph(para.clone())
                        .with_note(
                            "it returns the controlling side, or nothing (`first([])` of no side) for none",
                        ),
                    );
                    continue;
                }
                let codes = cx.env.groups[g].1.clone();
                let p = cx.env.para(&para);
                prog.controls.push(ControlDef { group: group.name.clone(), codes, func: sig.id, para: p });
            }
            _ => {}
        }
    }
}
