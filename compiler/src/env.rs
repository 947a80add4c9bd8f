//! Global environment: every declared name, collected before any body is compiled,
//! with duplicate detection (E0101) and paragraph interning.

use crate::types::Ty;
use kriegsspiel_dsl::ast::*;
use kriegsspiel_dsl::Diagnostic;
use std::collections::BTreeMap;

/// What a global value name denotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Global {
    Side(u8),
    UnitType(u16),
    Terrain(u16),
    Code(u16, usize),
}

/// Signature of a user function, procedure or modifier set.
#[derive(Clone, Debug)]
pub struct Sig {
    pub id: u32,
    pub params: Vec<Ty>,
    pub ret: Ty,
    pub kind: CallableKind,
    pub span: Span,
    pub para: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallableKind {
    Fn,
    Procedure,
    Modifiers,
}

/// Everything the bodies can refer to.
#[derive(Default)]
pub struct Env {
    /// The rulebook's die and the offset of its faces (`dice d10 faces 0..9`: 10, -1):
    /// a roll of that die reads 1..sides plus the offset.
    pub die: (u32, i64),
    pub sides: Vec<String>,
    pub ratings: Vec<(String, i64, i64)>,
    pub classes: Vec<String>,
    pub unit_types: Vec<(String, u64, u8, String)>,
    pub markers: Vec<(String, MarkerTarget)>,
    pub tracks: Vec<(String, bool, i64, i64)>,
    /// Whether each track (same order) holds one value per counter.
    pub track_per_unit: Vec<bool>,
    /// The `results` group a track is indexed by (`track rp per Country`).
    pub track_group: Vec<Option<Ident>>,
    /// Tracks kept `per hex` (map spaces) or `per border`.
    pub track_key: Vec<kriegsspiel_runtime::program::SpaceKey>,
    /// The second key of each track with two keys (`track t per side per Border`).
    pub track_second: Vec<Option<TrackKey>>,
    /// What a track holds when it holds references (`: Unit`), by track index.
    pub track_holds: Vec<Option<Ident>>,
    pub terrain_attrs: Vec<(String, Ty)>,
    pub hexside_attrs: Vec<(String, Ty)>,
    pub terrains: Vec<String>,
    pub hexsides: Vec<String>,
    /// `results` groups: name and codes (global symbol index of each).
    pub groups: Vec<(String, Vec<u16>)>,
    pub symbols: Vec<(String, usize)>,
    pub tables: Vec<String>,
    /// Result type of each table's cells (`Ty::Int` if no `result` clause).
    pub table_ty: Vec<Ty>,
    pub callables: BTreeMap<String, Sig>,
    pub rulings: Vec<(String, Vec<String>)>,
    pub flags: Vec<String>,
    /// Optional rules.
    pub options: Vec<String>,
    /// Cups and the type of value each holds.
    pub cups: Vec<(String, Ty)>,
    /// Decks: name and the group of codes of their cards (in `prog.decks` order).
    pub decks: Vec<(String, usize)>,
    /// Attributes any card gives, with their types.
    pub card_attrs: Vec<(String, Ty)>,
    /// Hands (a list per side) and the type of value each holds.
    pub hands: Vec<(String, Ty)>,
    pub regions: Vec<String>,
    pub counters: Vec<String>,
    pub globals: BTreeMap<String, Global>,
    /// Where each name was first declared (for duplicate reports).
    pub declared: BTreeMap<String, Span>,
    /// Names used somewhere (for the unused-declaration lint).
    pub used: std::collections::BTreeSet<String>,
    pub paragraphs: Vec<String>,
    pub map_dims: crate::map::Dims,
    /// Faces of each unit type that declares `formations` (indexed by unit type).
    pub unit_faces: Vec<Option<crate::facing::TypeFaces>>,
    /// The results group of formation names, once a `formations` declaration made it.
    pub formation_group: Option<usize>,
    /// The results group `Mode` of movement modes, when a named `movement` block made it;
    /// each mode's name and code, the default (unnamed `normal`, else the first) first.
    pub mode_group: Option<usize>,
    pub modes: Vec<(String, u16)>,
    /// An area map's own attributes (`value`, `capital`...) and their types.
    pub area_attrs: Vec<(String, crate::types::Ty)>,
    /// The names of the phases some `phase` statement plays (for `in_phase`).
    pub phases: Vec<String>,
}

impl Env {
    /// Intern a paragraph string; returns its id.
    pub fn para(&mut self, p: &str) -> u16 {
        if let Some(i) = self.paragraphs.iter().position(|x| x == p) {
            return i as u16;
        }
        self.paragraphs.push(p.to_string());
        (self.paragraphs.len() - 1) as u16
    }

    /// Record a declared name in the namespace `ns`; E0101 if taken.
    pub fn declare(&mut self, ns: &str, name: &Ident, diags: &mut Vec<Diagnostic>, para: &str) -> bool {
        let key = format!("{ns}:{}", name.name);
        if let Some(prev) = self.declared.get(&key) {
            diags.push(
                Diagnostic::error("E0101", name.span, format!("`{}` is declared twice", name.name))
                    .with_label(*prev, "first declared here")
                    .with_paragraph(para),
            );
            return false;
        }
        self.declared.insert(key, name.span);
        true
    }

    pub fn class_index(&self, name: &str) -> Option<usize> {
        self.classes.iter().position(|c| c == name)
    }
    pub fn marker_index(&self, name: &str) -> Option<usize> {
        self.markers.iter().position(|m| m.0 == name)
    }
    pub fn rating_index(&self, name: &str) -> Option<usize> {
        self.ratings.iter().position(|r| r.0 == name)
    }
    pub fn track_index(&self, name: &str) -> Option<usize> {
        self.tracks.iter().position(|t| t.0 == name)
    }
    pub fn table_index(&self, name: &str) -> Option<usize> {
        self.tables.iter().position(|t| t == name)
    }
    pub fn group_index(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.0 == name)
    }
    /// The type a track of references holds, by the name declared after its colon:
    /// `Unit`, `Hex`, `Side` or a results group; None for any other name.
    pub fn held_ty(&self, name: &str) -> Option<Ty> {
        match name {
            "Unit" => Some(Ty::Unit),
            "Hex" => Some(Ty::Hex),
            "Side" => Some(Ty::Side),
            g => self.groups.iter().position(|x| x.0 == g).map(Ty::Code),
        }
    }

    /// What track `ti` holds when it holds references; None for a track of numbers
    /// (`Ty::Error` for a name it cannot hold, reported at its declaration, E0102).
    pub fn track_holds_ty(&self, ti: usize) -> Option<Ty> {
        let name = self.track_holds.get(ti)?.as_ref()?;
        Some(self.held_ty(&name.name).unwrap_or(Ty::Error))
    }

    pub fn group_names(&self) -> Vec<String> {
        self.groups.iter().map(|g| g.0.clone()).collect()
    }

    /// Resolve a type expression.
    #[allow(clippy::result_large_err)]
    pub fn ty(&self, t: &TypeExpr) -> Result<Ty, Diagnostic> {
        match t {
            TypeExpr::List(inner, _) => Ok(Ty::list(self.ty(inner)?)),
            TypeExpr::Named(id) => Ok(match id.name.as_str() {
                "Int" => Ty::Int,
                "Bool" => Ty::Bool,
                "Side" => Ty::Side,
                "Unit" => Ty::Unit,
                "Hex" => Ty::Hex,
                "Terrain" => Ty::Terrain,
                "UnitType" => Ty::UnitType,
                other => match self.group_index(other) {
                    Some(g) => Ty::Code(g),
                    None => return Err(Diagnostic::error(
                        "E0102",
                        id.span,
                        format!("unknown type `{other}`"),
                    )
                    .with_note(
                        "types: Int, Bool, Side, Unit, Hex, Terrain, UnitType, List<T>, or a `results` group",
                    )),
                },
            }),
        }
    }
}

/// Closest name by edit distance, for "did you mean" notes.
pub fn suggest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(name, c);
        if d <= 2.max(name.len() / 3) && best.map(|(bd, _)| d < bd).unwrap_or(true) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}
