//! Types of the rules language, and integer intervals for range analysis.

use std::fmt;

/// A value's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Int,
    Bool,
    Side,
    Unit,
    Hex,
    Terrain,
    UnitType,
    /// A result code of the `results` group with this index.
    Code(usize),
    List(Box<Ty>),
    /// A procedure call's "value" or a `choose ... or none` that may be empty.
    Nil,
    /// Produced after an error, compatible with everything (no cascades).
    Error,
}

impl Ty {
    pub fn list(t: Ty) -> Ty {
        Ty::List(Box::new(t))
    }
    /// Compatible for assignment/comparison (Error matches all).
    pub fn fits(&self, other: &Ty) -> bool {
        match (self, other) {
            (Ty::Error, _) | (_, Ty::Error) => true,
            (Ty::List(a), Ty::List(b)) => a.fits(b),
            (a, b) => a == b,
        }
    }
    /// The more precise of two compatible types (`List<?>` from `[]` yields to `List<Hex>`).
    pub fn join(self, other: Ty) -> Ty {
        match (self, other) {
            (Ty::Error, t) | (t, Ty::Error) => t,
            (Ty::List(a), Ty::List(b)) => Ty::list(a.join(*b)),
            (a, _) => a,
        }
    }
    pub fn name(&self, groups: &[String]) -> String {
        match self {
            Ty::Int => "Int".into(),
            Ty::Bool => "Bool".into(),
            Ty::Side => "Side".into(),
            Ty::Unit => "Unit".into(),
            Ty::Hex => "Hex".into(),
            Ty::Terrain => "Terrain".into(),
            Ty::UnitType => "UnitType".into(),
            Ty::Code(g) => groups.get(*g).cloned().unwrap_or_else(|| "Code".into()),
            Ty::List(t) => format!("List<{}>", t.name(groups)),
            Ty::Nil => "nothing".into(),
            Ty::Error => "?".into(),
        }
    }
}

/// Inclusive bounds of an Int expression; saturating arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iv {
    pub lo: i64,
    pub hi: i64,
}

/// Bounds treated as "unknown".
pub const BIG: i64 = 1 << 40;

impl Iv {
    pub const ANY: Iv = Iv { lo: -BIG, hi: BIG };
    pub fn exact(v: i64) -> Iv {
        Iv { lo: v, hi: v }
    }
    pub fn new(lo: i64, hi: i64) -> Iv {
        Iv { lo: lo.max(-BIG), hi: hi.min(BIG) }
    }
    pub fn is_known(&self) -> bool {
        self.lo > -BIG && self.hi < BIG
    }
    pub fn add(self, o: Iv) -> Iv {
        Iv::new(self.lo.saturating_add(o.lo), self.hi.saturating_add(o.hi))
    }
    pub fn sub(self, o: Iv) -> Iv {
        Iv::new(self.lo.saturating_sub(o.hi), self.hi.saturating_sub(o.lo))
    }
    pub fn neg(self) -> Iv {
        Iv::new(self.hi.saturating_neg(), self.lo.saturating_neg())
    }
    pub fn mul(self, o: Iv) -> Iv {
        if !self.is_known() || !o.is_known() {
            return Iv::ANY;
        }
        let c = [self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi];
        Iv::new(*c.iter().min().unwrap_or(&0), *c.iter().max().unwrap_or(&0))
    }
    pub fn union(self, o: Iv) -> Iv {
        Iv::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }
    pub fn within(&self, lo: i64, hi: i64) -> bool {
        self.lo >= lo && self.hi <= hi
    }
}

impl fmt::Display for Iv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = |v: i64| if v.abs() >= BIG { "∞".to_string() } else { v.to_string() };
        write!(f, "{}..{}", b(self.lo), b(self.hi))
    }
}
