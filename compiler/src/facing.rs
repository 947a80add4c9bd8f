//! `formations` declarations (the faces of a unit type's counters) and the starting
//! facing and face of placed units.
//!
//! Formation names are the codes of one results group, `Formation`, created by the
//! first `formations` declaration: `u.formation == Column` compares codes, a name
//! shared by two unit types (`Line` for infantry and cavalry) is one code, and a
//! formation name is a value like any other (E0101 when it clashes).

use crate::env::{Env, Global};
use kriegsspiel_dsl::ast::*;
use kriegsspiel_dsl::Diagnostic;
use kriegsspiel_runtime::program::{FaceDef, Program};

/// The name of the results group holding formation names.
pub const GROUP: &str = "Formation";

/// One unit type's faces as compiled (kept in `Env` until the program is assembled).
#[derive(Clone, Debug, Default)]
pub struct TypeFaces {
    /// Face names, in declaration order (the first is the face a unit starts in).
    pub names: Vec<String>,
    pub faces: Vec<FaceDef>,
    pub transitions: Vec<(u8, u8)>,
}

fn first_para(d: &Decl) -> String {
    d.anchors.first().map(|a| a.text.clone()).unwrap_or_default()
}

/// Declare every `formations` declaration's names and compile its faces (after unit
/// types, classes and ratings are known).
pub fn declare(decls: &[crate::layers::DeclRef<'_>], env: &mut Env, diags: &mut Vec<Diagnostic>) {
    for d in decls {
        let DeclKind::Formations { unit, faces, changes } = &d.kind else { continue };
        let para = first_para(d);
        let Some(Global::UnitType(t)) = env.globals.get(&unit.name).cloned() else {
            diags.push(
                Diagnostic::error("E0103", unit.span, format!("unknown unit type `{}`", unit.name))
                    .with_paragraph(para.clone()),
            );
            continue;
        };
        let t = t as usize;
        if env.unit_faces.len() < env.unit_types.len() {
            env.unit_faces.resize(env.unit_types.len(), None);
        }
        if env.unit_faces[t].is_some() {
            diags.push(
                Diagnostic::error(
                    "E0101",
                    unit.span,
                    format!("the formations of `{}` are declared twice", unit.name),
                )
                .with_paragraph(para.clone()),
            );
            continue;
        }
        let group = group(env, unit.span, diags, &para);
        let (_, type_classes, steps, _) = env.unit_types[t].clone();
        let mut tf = TypeFaces::default();
        for f in faces {
            let fpara = f.anchors.first().map(|a| a.text.clone()).unwrap_or_else(|| para.clone());
            if tf.names.contains(&f.name.name) {
                diags.push(
                    Diagnostic::error(
                        "E0101",
                        f.name.span,
                        format!("face `{}` is declared twice", f.name.name),
                    )
                    .with_paragraph(fpara.clone()),
                );
                continue;
            }
            if tf.names.len() >= 255 {
                continue;
            }
            let Some(sym) = formation_code(env, group, &f.name, diags, &fpara) else { continue };
            let mut classes = type_classes;
            if let Some(list) = &f.classes {
                classes = 0;
                for c in list {
                    match env.class_index(&c.name) {
                        Some(i) if i < 64 => classes |= 1 << i,
                        _ => diags.push(
                            Diagnostic::error("E0104", c.span, format!("unknown class `{}`", c.name))
                                .with_paragraph(fpara.clone()),
                        ),
                    }
                }
            }
            let mut ratings = Vec::new();
            for (r, vals) in &f.ratings {
                let Some(ri) = env.rating_index(&r.name) else {
                    diags.push(
                        Diagnostic::error("E0106", r.span, format!("unknown rating `{}`", r.name))
                            .with_paragraph(fpara.clone()),
                    );
                    continue;
                };
                let (_, lo, hi) = env.ratings[ri].clone();
                if let Some(v) = vals.iter().find(|v| **v < lo || **v > hi) {
                    diags.push(
                        Diagnostic::error(
                            "E0501",
                            r.span,
                            format!("{} {v} is outside the rating's range {lo}..{hi}", r.name),
                        )
                        .with_paragraph(fpara.clone()),
                    );
                }
                if vals.len() != 1 && vals.len() != steps as usize {
                    diags.push(
                        Diagnostic::error(
                            "E0502",
                            r.span,
                            format!(
                                "{} values for `{}`, but `{}` has {steps} step(s)",
                                vals.len(),
                                r.name,
                                unit.name
                            ),
                        )
                        .with_paragraph(fpara.clone()),
                    );
                }
                ratings.push((ri as u16, vals.clone()));
            }
            let p = env.para(&fpara);
            tf.names.push(f.name.name.clone());
            tf.faces.push(FaceDef { sym, classes, ratings, para: p });
        }
        for c in changes {
            let cpara = c.anchors.first().map(|a| a.text.clone()).unwrap_or_else(|| para.clone());
            let idx = |n: &Ident, diags: &mut Vec<Diagnostic>| {
                let i = tf.names.iter().position(|x| x == &n.name);
                if i.is_none() {
                    diags.push(
                        Diagnostic::error(
                            "E0306",
                            n.span,
                            format!("`{}` is not a face of `{}`", n.name, unit.name),
                        )
                        .with_paragraph(cpara.clone()),
                    );
                }
                i.map(|i| i as u8)
            };
            let (Some(a), Some(b)) = (idx(&c.from, diags), idx(&c.to, diags)) else { continue };
            if a == b {
                diags.push(
                    Diagnostic::error("E0301", c.span, "a change of face from a face to itself")
                        .with_paragraph(cpara.clone()),
                );
                continue;
            }
            for pair in if c.both { vec![(a, b), (b, a)] } else { vec![(a, b)] } {
                if !tf.transitions.contains(&pair) {
                    tf.transitions.push(pair);
                }
            }
        }
        env.used.insert(unit.name.clone());
        env.unit_faces[t] = Some(tf);
    }
}

/// Faces go with facing and hexsides: not on an area map (E0509).
pub fn check_map(decls: &[crate::layers::DeclRef<'_>], env: &Env, diags: &mut Vec<Diagnostic>) {
    if env.map_dims.areas.is_empty() {
        return;
    }
    for d in decls {
        if let DeclKind::Formations { unit, .. } = &d.kind {
            diags.push(
                Diagnostic::error(
                    "E0509",
                    unit.span,
                    "formations and facing need a hex map; this map is an area map",
                )
                .with_paragraph(first_para(d)),
            );
        }
    }
}

/// The index of the `Formation` group, created on first use.
fn group(env: &mut Env, span: Span, diags: &mut Vec<Diagnostic>, para: &str) -> usize {
    if let Some(g) = env.formation_group {
        return g;
    }
    let g = env.groups.len();
    if env.groups.iter().any(|x| x.0 == GROUP) {
        diags.push(
            Diagnostic::error(
                "E0101",
                span,
                format!("`{GROUP}` is the group of formation names: rename the results group"),
            )
            .with_paragraph(para),
        );
    }
    env.groups.push((GROUP.to_string(), Vec::new()));
    env.formation_group = Some(g);
    g
}

/// The code of formation name `n` (shared by every unit type that uses the name).
fn formation_code(
    env: &mut Env,
    g: usize,
    n: &Ident,
    diags: &mut Vec<Diagnostic>,
    para: &str,
) -> Option<u16> {
    match env.globals.get(&n.name) {
        Some(Global::Code(s, gg)) if *gg == g => return Some(*s),
        _ => {}
    }
    if !env.declare("value", n, diags, para) {
        return None;
    }
    let sym = env.symbols.len() as u16;
    env.symbols.push((n.name.clone(), g));
    env.globals.insert(n.name.clone(), Global::Code(sym, g));
    env.groups[g].1.push(sym);
    Some(sym)
}

/// Put each unit type's faces into the program.
pub fn assemble(env: &Env, prog: &mut Program) {
    for (t, tf) in env.unit_faces.iter().enumerate() {
        if let (Some(tf), Some(ty)) = (tf, prog.unit_types.get_mut(t)) {
            ty.faces = tf.faces.clone();
            ty.transitions = tf.transitions.clone();
        }
    }
}

/// A counter's values printed on its faces (`Column { ma: 6 }`): the face must be one of
/// its type's (E0306), the ratings known (E0106), in range (E0501), one per step or one
/// (E0502).
pub fn counter_faces(
    env: &Env,
    unit_type: usize,
    c: &Counter,
    para: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(u8, u16, Vec<i64>)> {
    let mut out = Vec::new();
    let names = env.unit_faces.get(unit_type).and_then(|x| x.as_ref()).map(|tf| tf.names.clone());
    let steps = env.unit_types.get(unit_type).map(|t| t.2).unwrap_or(1) as usize;
    for (face, vals) in &c.face_values {
        let Some(fi) = names.as_ref().and_then(|ns| ns.iter().position(|x| x == &face.name)) else {
            diags.push(
                Diagnostic::error(
                    "E0306",
                    face.span,
                    format!("`{}` is not a face of `{}`", face.name, c.unit_type.name),
                )
                .with_paragraph(para),
            );
            continue;
        };
        for (r, v) in vals {
            let Some(ri) = env.rating_index(&r.name) else {
                diags.push(
                    Diagnostic::error("E0106", r.span, format!("unknown rating `{}`", r.name))
                        .with_paragraph(para),
                );
                continue;
            };
            let (_, lo, hi) = env.ratings[ri].clone();
            if let Some(x) = v.iter().find(|x| **x < lo || **x > hi) {
                diags.push(
                    Diagnostic::error(
                        "E0501",
                        r.span,
                        format!("{} = {x} is outside the rating's range {lo}..{hi}", r.name),
                    )
                    .with_paragraph(para),
                );
            }
            if v.len() != 1 && v.len() != steps {
                diags.push(
                    Diagnostic::error(
                        "E0502",
                        r.span,
                        format!(
                            "{} gives {} step values but {} has {steps} step(s)",
                            r.name,
                            v.len(),
                            c.unit_type.name
                        ),
                    )
                    .with_paragraph(para),
                );
            }
            out.push((fi as u8, ri as u16, v.clone()));
        }
    }
    out
}

/// A placement's starting facing (the `UnitState::facing` encoding) and face index.
pub fn unit_start(
    env: &Env,
    unit_type: usize,
    start: &UnitStart,
    diags: &mut Vec<Diagnostic>,
    para: &str,
) -> (u8, u8) {
    let mut facing = 0u8;
    if let Some((n, vertex, span)) = start.facing {
        if !env.map_dims.areas.is_empty() {
            diags.push(
                Diagnostic::error("E0509", span, "an area map has no hexsides to face").with_paragraph(para),
            );
        } else if !(0..6).contains(&n) {
            diags.push(
                Diagnostic::error("E0501", span, format!("a facing is a hexside number 0-5, not {n}"))
                    .with_paragraph(para),
            );
        } else {
            facing = n as u8 | if vertex { kriegsspiel_runtime::FACING_VERTEX } else { 0 };
        }
    }
    let mut face = 0u8;
    if let Some(f) = &start.face {
        let names = env.unit_faces.get(unit_type).and_then(|x| x.as_ref()).map(|tf| &tf.names);
        match names.and_then(|ns| ns.iter().position(|x| x == &f.name)) {
            Some(i) => face = i as u8,
            None => {
                let ty = env.unit_types.get(unit_type).map(|t| t.0.clone()).unwrap_or_default();
                diags.push(
                    Diagnostic::error("E0306", f.span, format!("`{}` is not a face of `{ty}`", f.name))
                        .with_paragraph(para),
                );
            }
        }
    }
    (facing, face)
}
