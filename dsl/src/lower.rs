//! Lowering from pest's parse tree into the spanned AST of [`crate::ast`].
//!
//! One method per grammar rule. The grammar guarantees the shape of every pair, so the
//! cursor helpers below only fail on a grammar/lowering mismatch (a bug, caught by the
//! tests). Semantic checks that pest cannot express (integer ranges, dice, ratios)
//! produce diagnostics here: E0002 (number out of range), E0003 (bad ratio or dice).

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::parser::{Rule, RulesParser};
use crate::syntax_error;
use pest::iterators::{Pair, Pairs};
use pest::Parser;

type P<'i> = Pair<'i, Rule>;

/// Deepest nesting of expressions and blocks the lowering accepts.
const MAX_DEPTH: u32 = 200;
/// Largest file whose syntax error is explained with pest's detailed second parse.
const DETAIL_LIMIT: usize = 1 << 20;
/// Most dice a roll may throw.
const MAX_DICE: u32 = 100;

/// Parse one file.
pub fn parse_file(file: FileId, text: &str) -> Result<Rulebook, Vec<Diagnostic>> {
    let pairs = match RulesParser::parse(Rule::file, text) {
        Ok(p) => p,
        Err(first) => {
            // A big file is not parsed a second time (the detailed parse is about three
            // times slower): its error names what pest expected, without the rule detail.
            if text.len() > DETAIL_LIMIT {
                return Err(vec![syntax_error::convert(file, text, first)]);
            }
            // Parse again collecting pest's parse attempts, which name the rules and
            // tokens expected at the error. The setting is process-wide and stays on:
            // it only slows parsing down, and only after a syntax error was seen.
            pest::set_error_detail(true);
            let e = RulesParser::parse(Rule::file, text).err().unwrap_or(first);
            return Err(vec![syntax_error::convert(file, text, e)]);
        }
    };
    let mut l = Lowerer {
        file,
        diags: Vec::new(),
        depth: 0,
        trivia: trivia_runs(text),
        h_children: 0,
        h_node: None,
        h_last: 0,
        layer: None,
    };
    let mut book = Rulebook::default();
    for p in pairs {
        // `file` contains `item*` and `EOI`.
        for item in p.into_inner() {
            if item.as_rule() == Rule::item {
                l.item(item, &mut book);
            }
        }
    }
    if l.diags.is_empty() {
        Ok(book)
    } else {
        Err(l.diags)
    }
}

/// A cursor over the children of one pair.
struct Kids<'i> {
    it: std::iter::Peekable<Pairs<'i, Rule>>,
}

impl<'i> Kids<'i> {
    fn of(p: P<'i>) -> Kids<'i> {
        Kids { it: p.into_inner().peekable() }
    }
    /// The next child; the grammar guarantees it exists.
    fn next(&mut self) -> P<'i> {
        self.it.next().expect("grammar and lowering disagree: missing child")
    }
    /// The next child if it is a `rule`.
    fn opt(&mut self, rule: Rule) -> Option<P<'i>> {
        self.it.next_if(|p| p.as_rule() == rule)
    }
    fn rest(self) -> impl Iterator<Item = P<'i>> {
        self.it
    }
}

struct Lowerer {
    file: FileId,
    diags: Vec<Diagnostic>,
    depth: u32,
    /// Height bookkeeping of the expression being lowered (see [`Lowerer::expr`]): the
    /// greatest height among the expressions lowered so far inside the current one,
    /// a height a chain sets for its own node, and the height of the last expression.
    h_children: u32,
    h_node: Option<u32>,
    h_last: u32,
    /// Maximal runs of whitespace and comments, in order (see [`trivia_runs`]).
    trivia: Vec<(usize, usize)>,
    /// The layer named by the last `in layer NAME;` of the file.
    layer: Option<Ident>,
}

impl Lowerer {
    /// The span of a pair without trailing whitespace and comments (pest includes the
    /// whitespace skipped before a failed optional or repetition at the end of a rule).
    fn span(&self, p: &P) -> Span {
        let s = p.as_span();
        Span::new(self.file, s.start(), self.trim_end(s.start(), s.end()))
    }

    fn trim_end(&self, start: usize, end: usize) -> usize {
        // The run that ends at or contains `end`, if any.
        let i = self.trivia.partition_point(|&(s, _)| s < end);
        match i.checked_sub(1).map(|i| self.trivia[i]) {
            Some((s, e)) if end <= e => s.max(start),
            _ => end,
        }
    }

    // ------------------------------------------------------------ tokens

    fn ident(&self, p: P) -> Ident {
        debug_assert_eq!(p.as_rule(), Rule::ident);
        Ident { name: p.as_str().to_string(), span: self.span(&p) }
    }

    fn ident_list(&self, p: P) -> Vec<Ident> {
        p.into_inner().map(|i| self.ident(i)).collect()
    }

    fn string(&self, p: P) -> String {
        // string = ${ "\"" ~ str_inner ~ "\"" }
        let inner = p.into_inner().next().map(|i| i.as_str()).unwrap_or("");
        unescape(inner)
    }

    fn int(&mut self, p: P) -> i64 {
        self.int_text(p.as_str(), self.span(&p))
    }

    fn int_text(&mut self, text: &str, span: Span) -> i64 {
        match text.parse::<i64>() {
            Ok(v) => v,
            Err(_) => {
                self.diags.push(
                    Diagnostic::error("E0002", span, format!("number `{text}` is out of range"))
                        .with_note(format!("numbers must lie between {} and {}", i64::MIN, i64::MAX)),
                );
                0
            }
        }
    }

    fn int_range(&mut self, p: P) -> IntRange {
        let span = self.span(&p);
        let mut k = Kids::of(p);
        let lo = self.int(k.next());
        let hi = self.int(k.next());
        IntRange { lo, hi, span }
    }

    fn anchor(&self, p: P) -> Anchor {
        let span = self.span(&p);
        let body = p.into_inner().next().map(|b| b.as_str()).unwrap_or("");
        Anchor { text: normalise_anchor(body), span }
    }

    fn dice(&mut self, p: P) -> Dice {
        let span = self.span(&p);
        let text = p.as_str();
        let (count, sides) = text.split_once('d').unwrap_or(("", text));
        let (count, sides) =
            match (if count.is_empty() { Ok(1) } else { count.parse::<u32>() }, sides.parse::<u32>()) {
                (Ok(c), Ok(s)) => (c, s),
                _ => {
                    self.diags.push(Diagnostic::error(
                        "E0002",
                        span,
                        format!("dice `{text}`: number out of range"),
                    ));
                    return Dice { count: 1, sides: 1, span };
                }
            };
        let bad = if sides == 0 {
            Some("dice must have at least one side")
        } else if count == 0 {
            Some("a roll must throw at least one die")
        } else if count > MAX_DICE {
            Some("a roll may throw at most 100 dice")
        } else {
            None
        };
        if let Some(msg) = bad {
            self.diags.push(Diagnostic::error("E0003", span, format!("bad dice `{text}`: {msg}")));
        }
        Dice { count, sides, span }
    }

    fn hex_lit(&self, p: P) -> HexLit {
        HexLit { text: p.as_str().to_string(), span: self.span(&p) }
    }

    fn supplied(&self, p: Option<P>) -> Option<Supplied> {
        let p = p?;
        let span = self.span(&p);
        Some(Supplied { reason: self.string(Kids::of(p).next()), span })
    }

    fn literal(&mut self, p: P) -> Literal {
        let span = self.span(&p);
        let inner = Kids::of(p).next();
        let kind = match inner.as_rule() {
            Rule::bool_lit => LiteralKind::Bool(inner.as_str() == "true"),
            Rule::ratio => {
                let mut k = Kids::of(inner);
                let num = self.int(k.next());
                let den_p = k.next();
                let den_span = self.span(&den_p);
                let den = self.int(den_p);
                if den == 0 {
                    self.diags.push(Diagnostic::error(
                        "E0003",
                        den_span,
                        "a ratio's denominator must not be zero",
                    ));
                }
                LiteralKind::Ratio(num, den)
            }
            Rule::int => LiteralKind::Int(self.int(inner)),
            Rule::string => LiteralKind::Str(self.string(inner)),
            _ => LiteralKind::Name(inner.as_str().to_string()),
        };
        Literal { kind, span }
    }

    // ------------------------------------------------------------ items

    fn item(&mut self, p: P, book: &mut Rulebook) {
        let inner = Kids::of(p).next();
        match inner.as_rule() {
            Rule::header => book.headers.push(self.header(inner)),
            Rule::contents => {
                for e in inner.into_inner() {
                    book.contents.push(self.contents_entry(e));
                }
            }
            Rule::steps => {
                for e in inner.into_inner() {
                    let span = self.span(&e);
                    let mut k = Kids::of(e);
                    let code = self.string(k.next());
                    let title = k.opt(Rule::string).map(|t| self.string(t));
                    let paragraphs = k.rest().map(|a| self.anchor(a)).collect();
                    book.steps.push(StepEntry { code, title, paragraphs, span });
                }
            }
            Rule::layer_use => self.layer = Some(self.ident(Kids::of(inner).next())),
            _ => book.decls.push(self.anchored(inner)),
        }
    }

    fn header(&mut self, p: P) -> Header {
        let span = self.span(&p);
        let mut k = Kids::of(p);
        let title = self.string(k.next());
        let mut numbering = Vec::new();
        let mut dice = None;
        let mut parts = Vec::new();
        let mut faces = None;
        let mut externals = Vec::new();
        let mut allows = Vec::new();
        for f in k.rest() {
            let f = Kids::of(f).next();
            match f.as_rule() {
                Rule::numbering => numbering.extend(f.into_inner().map(|i| self.ident(i))),
                Rule::parts_decl => parts.extend(self.ident_list(Kids::of(f).next())),
                Rule::external_decl => {
                    let mut e = Kids::of(f);
                    let name = self.ident(e.next());
                    let title = self.string(e.next());
                    externals.push((name, title));
                }
                Rule::allow_decl => {
                    let mut e = Kids::of(f);
                    let code = self.ident(e.next());
                    let reason = self.string(e.next());
                    allows.push((code, reason));
                }
                _ => {
                    let mut d = Kids::of(f);
                    dice = Some(self.dice(d.next()));
                    faces = d.rest().next().map(|fc| self.int_range(Kids::of(fc).next()));
                }
            }
        }
        Header { title, numbering, dice, parts, faces, externals, allows, span }
    }

    fn contents_entry(&mut self, p: P) -> ContentsEntry {
        let span = self.span(&p);
        let mut k = Kids::of(p);
        let anchor = self.anchor(k.next());
        let title = self.string(k.next());
        let waived = k.opt(Rule::waiver).map(|w| self.string(Kids::of(w).next()));
        ContentsEntry { anchor, title, waived, span }
    }

    fn anchored(&mut self, p: P) -> Decl {
        let span = self.span(&p);
        let mut anchors = Vec::new();
        let mut decl = None;
        let mut supersede = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::anchor => anchors.push(self.anchor(c)),
                Rule::supersede => {
                    let how = if c.as_str() == "amends" { Supersede::Amends } else { Supersede::Replaces };
                    supersede = Some((how, self.span(&c)));
                }
                _ => decl = Some(c),
            }
        }
        let decl = decl.expect("grammar and lowering disagree: anchored without decl");
        let kind = self.decl(Kids::of(decl).next());
        Decl { anchors, kind, span, layer: self.layer.clone(), supersede }
    }

    fn decl(&mut self, p: P) -> DeclKind {
        let rule = p.as_rule();
        let span = self.span(&p);
        let mut k = Kids::of(p);
        match rule {
            Rule::sides_decl => DeclKind::Sides(self.ident_list(k.next())),
            Rule::players_decl => DeclKind::Players(
                k.rest()
                    .map(|c| {
                        let span = self.span(&c);
                        let mut ck = Kids::of(c);
                        let count = self.int(ck.next());
                        let players = ck.rest().map(|g| self.ident_list(Kids::of(g).next())).collect();
                        PlayerCount { count, span, players }
                    })
                    .collect(),
            ),
            Rule::teams_decl => DeclKind::Teams(
                k.rest()
                    .map(|t| {
                        let mut tk = Kids::of(t);
                        let name = self.ident(tk.next());
                        (name, self.ident_list(tk.next()))
                    })
                    .collect(),
            ),
            Rule::control_decl => {
                let group = self.ident(k.next());
                let func = self.ident(k.next());
                DeclKind::Control { group, func }
            }
            Rule::rating_decl => {
                let name = self.ident(k.next());
                let range = self.int_range(k.next());
                let doc = k.opt(Rule::string).map(|s| self.string(s));
                DeclKind::Rating { name, range, doc }
            }
            Rule::class_decl => DeclKind::Classes(self.ident_list(k.next())),
            Rule::formations_decl => self.formations(k),
            Rule::unit_decl => {
                let name = self.ident(k.next());
                let classes = self.ident_list(k.next());
                let steps = k.opt(Rule::steps_clause).map(|s| {
                    let i = Kids::of(s).next();
                    let sp = self.span(&i);
                    (self.int(i), sp)
                });
                DeclKind::Unit { name, classes, steps }
            }
            Rule::marker_decl => {
                let name = self.ident(k.next());
                let target = match k.next().as_str() {
                    "hex" => MarkerTarget::Hex,
                    "side" => MarkerTarget::Side,
                    _ => MarkerTarget::Unit,
                };
                DeclKind::Marker { name, target }
            }
            Rule::track_decl => {
                let name = self.ident(k.next());
                let mut keys = Vec::new();
                while let Some(key) = k.opt(Rule::track_key) {
                    let Some(inner) = key.into_inner().next() else { continue };
                    keys.push(match inner.as_rule() {
                        Rule::per_side => TrackKey::Side,
                        Rule::per_unit => TrackKey::Unit,
                        _ => {
                            let mut it = inner.into_inner();
                            TrackKey::Group(self.ident(it.next().expect("per_group holds its name")))
                        }
                    });
                }
                let mut keys = keys.into_iter();
                let first = keys.next();
                let second = keys.next();
                let per_side = matches!(first, Some(TrackKey::Side));
                let per_unit = matches!(first, Some(TrackKey::Unit));
                let per_group = match first {
                    Some(TrackKey::Group(g)) => Some(g),
                    _ => None,
                };
                let v = k.next();
                let values = if v.as_rule() == Rule::track_holds {
                    TrackValues::Holds(self.ident(v.into_inner().next().expect("track_holds holds a name")))
                } else {
                    TrackValues::Range(self.int_range(v))
                };
                DeclKind::Track { name, per_side, per_unit, per_group, second, values }
            }
            Rule::terrain_decl | Rule::hexside_decl => {
                let name = self.ident(k.next());
                let supplied = self.supplied(k.opt(Rule::supplied));
                let attrs = k
                    .next()
                    .into_inner()
                    .map(|a| {
                        let mut ak = Kids::of(a);
                        let name = self.ident(ak.next());
                        let value = self.literal(ak.next());
                        Attr { name, value }
                    })
                    .collect();
                if rule == Rule::terrain_decl {
                    DeclKind::Terrain { name, supplied, attrs }
                } else {
                    DeclKind::Hexside { name, supplied, attrs }
                }
            }
            Rule::results_decl => {
                let name = self.ident(k.next());
                let codes = self.ident_list(k.next());
                DeclKind::Results { name, codes }
            }
            Rule::table_decl => DeclKind::Table(self.table(k)),
            Rule::modifiers_decl => DeclKind::Modifiers(self.modifiers(k)),
            Rule::fn_decl => {
                let name = self.ident(k.next());
                let params = self.params(k.next());
                let ret = self.type_expr(k.next());
                let b = k.next();
                let body = if b.as_rule() == Rule::fn_block { self.fn_block(b) } else { self.expr(b) };
                DeclKind::Fn { name, params, ret, body }
            }
            Rule::procedure_decl => {
                let name = self.ident(k.next());
                let params = self.params(k.next());
                let ret = k.opt(Rule::proc_ret).map(|r| self.type_expr(Kids::of(r).next()));
                let body = self.block(k.next());
                DeclKind::Procedure { name, params, ret, body }
            }
            Rule::movement_decl => {
                let mut rest: Vec<P> = k.rest().collect();
                if rest.first().map(|p| p.as_rule()) == Some(Rule::ident) {
                    let name = self.ident(rest.remove(0));
                    DeclKind::MovementMode(name, rest.into_iter().map(|h| self.hook(h)).collect())
                } else {
                    DeclKind::Movement(rest.into_iter().map(|h| self.hook(h)).collect())
                }
            }
            Rule::retreat_decl => DeclKind::Retreat(k.rest().map(|h| self.hook(h)).collect()),
            Rule::los_decl => DeclKind::LineOfSight(k.rest().map(|h| self.hook(h)).collect()),
            Rule::option_decl => {
                let name = self.ident(k.next());
                let title = self.string(k.next());
                DeclKind::OptionRule { name, title }
            }
            Rule::cup_decl => {
                let name = self.ident(k.next());
                let ty = self.type_expr(k.next());
                DeclKind::Cup { name, ty }
            }
            Rule::deck_decl => {
                let _kw = k.next();
                let name = self.ident(k.next());
                let supplied = self.supplied(k.opt(Rule::supplied));
                let mut cards = Vec::new();
                for c in k.rest() {
                    let span = self.span(&c);
                    let mut ck = Kids::of(c);
                    let mut anchors = Vec::new();
                    while let Some(a) = ck.opt(Rule::anchor) {
                        anchors.push(self.anchor(a));
                    }
                    let cname = self.ident(ck.next());
                    let mut attrs = Vec::new();
                    let mut event = None;
                    for x in ck.rest() {
                        match x.as_rule() {
                            Rule::attr_block => {
                                attrs = x
                                    .into_inner()
                                    .map(|at| {
                                        let mut atk = Kids::of(at);
                                        let name = self.ident(atk.next());
                                        let value = self.literal(atk.next());
                                        Attr { name, value }
                                    })
                                    .collect();
                            }
                            Rule::card_event => event = Some(self.ident(Kids::of(x).next())),
                            _ => {}
                        }
                    }
                    cards.push(Card { anchors, name: cname, attrs, event, span });
                }
                DeclKind::Deck { name, supplied, cards }
            }
            Rule::hand_decl => {
                let _kw = k.next();
                let name = self.ident(k.next());
                let ty = self.type_expr(k.next());
                DeclKind::Hand { name, ty }
            }
            Rule::zoc_decl => DeclKind::ZoneOfControl(self.ident(k.next())),
            Rule::trigger_decl => {
                let name = self.ident(k.next());
                let once = k.opt(Rule::once).is_some();
                let chained = k.opt(Rule::chained).is_some();
                let when = self.expr(k.next());
                let body = self.block(k.next());
                DeclKind::Trigger { name, once, chained, when, body }
            }
            Rule::interrupt_decl => {
                let name = self.ident(k.next());
                let params = self.params(k.next());
                let when = self.expr(k.next());
                let body = self.block(k.next());
                DeclKind::Interrupt { name, params, when, body }
            }
            Rule::layer_decl => {
                let name = self.ident(k.next());
                let title = self.string(k.next());
                let above =
                    k.opt(Rule::layer_above).map(|a| self.ident_list(Kids::of(a).next())).unwrap_or_default();
                let optional = k.opt(Rule::layer_optional).is_some();
                DeclKind::Layer { name, title, above, optional }
            }
            Rule::waives_decl => {
                let mut targets = Vec::new();
                let mut reason = String::new();
                for c in k.rest() {
                    match c.as_rule() {
                        Rule::anchor => targets.push(self.anchor(c)),
                        _ => reason = self.string(c),
                    }
                }
                DeclKind::Waives { targets, reason }
            }
            Rule::invariant_decl => {
                let name = self.ident(k.next());
                let text = self.string(k.next());
                let point = self.check_point(k.next());
                let cond = self.expr(k.next());
                DeclKind::Invariant { name, text, point, cond }
            }
            Rule::hidden_decl => {
                let tracks = self.ident_list(k.next());
                let shown = self.ident(k.next());
                let revealed_by = k.opt(Rule::revealed_by).map(|r| {
                    let mut r = Kids::of(r);
                    let _kw = r.next();
                    self.ident(r.next())
                });
                DeclKind::Hidden { tracks, shown, revealed_by }
            }
            Rule::score_decl => {
                let _kw = k.next();
                DeclKind::Score { func: self.ident(k.next()) }
            }
            Rule::sequence_decl => DeclKind::Sequence(self.block(k.next())),
            Rule::ruling_decl => {
                let name = self.ident(k.next());
                let question = self.string(k.next());
                let alternatives = k
                    .rest()
                    .map(|a| {
                        let mut ak = Kids::of(a);
                        let is_default = ak.opt(Rule::default_kw).is_some();
                        let name = self.ident(ak.next());
                        let reading = self.string(ak.next());
                        RulingAlt { is_default, name, reading }
                    })
                    .collect();
                DeclKind::Ruling(Ruling { name, question, alternatives })
            }
            Rule::finding_decl => {
                let kind = self.ident(k.next());
                let description = self.string(k.next());
                let ruling = k.opt(Rule::finding_ruling).map(|r| {
                    let mut rk = Kids::of(r);
                    self.ident(rk.next())
                });
                DeclKind::Finding { kind, description, ruling }
            }
            Rule::map_decl => DeclKind::Map(self.map(k, span)),
            Rule::counters_decl => {
                let supplied = self.supplied(k.opt(Rule::supplied));
                let counters = k.rest().map(|c| self.counter(c)).collect();
                DeclKind::Counters { supplied, counters }
            }
            Rule::scenario_decl => DeclKind::Scenario(self.scenario(k, span)),
            Rule::example_decl => {
                let title = self.string(k.next());
                let items = k.rest().map(|i| self.example_item(i)).collect();
                DeclKind::Example(Example { title, items })
            }
            other => unreachable!("grammar and lowering disagree: decl {other:?}"),
        }
    }

    // ------------------------------------------------------------ tables

    fn table(&mut self, mut k: Kids) -> Table {
        let name = self.ident(k.next());
        let supplied = self.supplied(k.opt(Rule::supplied));
        let mut t = Table {
            name,
            supplied,
            roll: None,
            result: None,
            columns: None,
            beyond_rows: None,
            beyond_columns: None,
            rows: Vec::new(),
        };
        for c in k.rest() {
            if c.as_rule() == Rule::table_rows {
                t.rows = c.into_inner().map(|r| self.table_row(r)).collect();
                continue;
            }
            let c = Kids::of(c).next();
            let span = self.span(&c);
            let rule = c.as_rule();
            let mut ck = Kids::of(c);
            match rule {
                Rule::table_roll => t.roll = Some(self.dice(ck.next())),
                Rule::table_result => t.result = Some(self.ident(ck.next())),
                Rule::table_columns => {
                    let key = self.ident(ck.next());
                    let list = ck.next();
                    let (mut ranges, mut odds) = (Vec::new(), Vec::new());
                    if list.as_rule() == Rule::odds_list {
                        for item in list.into_inner() {
                            let ispan = self.span(&item);
                            let mut ik = item.into_inner();
                            let (Some(a), Some(b)) = (ik.next(), ik.next()) else { continue };
                            let (a, b) = (self.int(a), self.int(b));
                            odds.push((a, b, ispan));
                        }
                    } else {
                        ranges = list.into_inner().map(|r| self.open_range(r)).collect();
                    }
                    t.columns = Some(Columns { key, ranges, odds, span });
                }
                _ => {
                    let axis = ck.next().as_str();
                    let mode = if ck.next().as_str() == "error" { Beyond::Error } else { Beyond::Clamp };
                    if axis == "rows" {
                        t.beyond_rows = Some((mode, span));
                    } else {
                        t.beyond_columns = Some((mode, span));
                    }
                }
            }
        }
        t
    }

    fn open_range(&mut self, p: P) -> OpenRange {
        let span = self.span(&p);
        let mut k = Kids::of(p);
        let first = k.next();
        if first.as_rule() == Rule::int {
            let v = self.int(first);
            return OpenRange { lo: Some(v), hi: Some(v), span };
        }
        let lo = first.into_inner().next().map(|i| self.int(i));
        let hi = k.next().into_inner().next().map(|i| self.int(i));
        OpenRange { lo, hi, span }
    }

    fn table_row(&mut self, p: P) -> TableRow {
        let span = self.span(&p);
        let mut k = Kids::of(p);
        let key = k.next();
        let key_span = self.span(&key);
        let mut kk = Kids::of(key);
        let lo = self.int(kk.next());
        let hi = kk.opt(Rule::int).map(|i| self.int(i)).unwrap_or(lo);
        let cells = k
            .rest()
            .map(|c| {
                let c = Kids::of(c).next();
                if c.as_rule() == Rule::int {
                    let s = self.span(&c);
                    Cell::Int(self.int(c), s)
                } else {
                    Cell::Code(self.ident(c))
                }
            })
            .collect();
        TableRow { lo, hi, key_span, cells, span }
    }

    // ------------------------------------------------------------ modifiers

    fn modifiers(&mut self, mut k: Kids) -> Modifiers {
        let name = self.ident(k.next());
        let params = self.params(k.next());
        let mut m = Modifiers { name, params, lines: Vec::new(), round: None, cap: None, best_only: false };
        for c in k.rest() {
            if c.as_rule() == Rule::modifier_line {
                let line = self.modifier_line(c);
                m.lines.push(line);
                continue;
            }
            let o = Kids::of(c).next();
            match o.as_rule() {
                Rule::mod_round => {
                    let span = self.span(&o);
                    let dir = if Kids::of(o).next().as_str() == "up" { RoundDir::Up } else { RoundDir::Down };
                    m.round = Some((dir, span));
                }
                Rule::mod_cap => m.cap = Some(self.int_range(Kids::of(o).next())),
                _ => m.best_only = o.as_str().starts_with("best"),
            }
        }
        m
    }

    fn modifier_line(&mut self, p: P) -> ModifierLine {
        let span = self.span(&p);
        let mut k = Kids::of(p);
        let (anchor, also) = self.anchors(&mut k);
        let eff = Kids::of(k.next()).next();
        let effect = if eff.as_rule() == Rule::mod_add {
            let mut ek = Kids::of(eff);
            let negative = ek.next().as_str() == "-";
            let amt = Kids::of(ek.next()).next();
            let amount = if amt.as_rule() == Rule::int {
                AddAmount::Int(self.int(amt))
            } else {
                AddAmount::Name(self.ident(amt))
            };
            ModEffect::Add { negative, amount }
        } else {
            let eff_span = self.span(&eff);
            let mut ek = Kids::of(eff);
            let num = self.int(ek.next());
            let den = ek.opt(Rule::int).map(|d| self.int(d)).unwrap_or(1);
            if den <= 0 || num < 0 {
                self.diags.push(Diagnostic::error(
                    "E0003",
                    eff_span,
                    format!(
                        "bad multiplier `{}`: {}",
                        format_args!("x{num}/{den}"),
                        if den == 0 {
                            "the denominator must not be zero"
                        } else {
                            "numerator and denominator must not be negative"
                        }
                    ),
                ));
            }
            ModEffect::Mul { num, den }
        };
        let when = self.expr(k.next());
        ModifierLine { anchor, also, effect, when, span }
    }

    // ------------------------------------------------------------ functions, hooks

    fn check_point(&mut self, p: P) -> CheckPoint {
        let inner = Kids::of(p).next();
        let rule = inner.as_rule();
        let mut k = Kids::of(inner);
        match rule {
            Rule::cp_phase | Rule::cp_any_phase => {
                let after = k.next().as_str() == "after";
                let phase = if rule == Rule::cp_phase { Some(self.ident(k.next())) } else { None };
                let side = self.ident(k.next());
                CheckPoint::Phase { after, phase, side }
            }
            Rule::cp_move => {
                let unit = self.ident(k.next());
                let from = self.ident(k.next());
                let to = self.ident(k.next());
                CheckPoint::Move { unit, from, to }
            }
            _ => CheckPoint::Turn,
        }
    }

    fn params(&mut self, p: P) -> Vec<Param> {
        p.into_inner()
            .map(|param| {
                let mut k = Kids::of(param);
                let name = self.ident(k.next());
                let ty = self.type_expr(k.next());
                Param { name, ty }
            })
            .collect()
    }

    fn type_expr(&mut self, p: P) -> TypeExpr {
        let inner = Kids::of(p).next();
        if inner.as_rule() == Rule::list_type {
            let span = self.span(&inner);
            let elem = self.type_expr(Kids::of(inner).next());
            TypeExpr::List(Box::new(elem), span)
        } else {
            TypeExpr::Named(self.ident(inner))
        }
    }

    fn hook(&mut self, p: P) -> Hook {
        let mut k = Kids::of(p);
        let n = k.next();
        let name = Ident { name: n.as_str().to_string(), span: self.span(&n) };
        let v = Kids::of(k.next()).next();
        let value = if v.as_rule() == Rule::hook_list {
            HookValue::List(
                v.into_inner()
                    .map(|item| {
                        let mut ik = Kids::of(item);
                        let scope = ik.opt(Rule::hook_scope).map(|s| {
                            if s.as_str() == "end" {
                                HookScope::End
                            } else {
                                HookScope::Each
                            }
                        });
                        (scope, self.ident(ik.next()))
                    })
                    .collect(),
            )
        } else {
            HookValue::Fn(self.ident(v))
        };
        Hook { name, value }
    }

    // ------------------------------------------------------------ map, counters, scenarios

    fn map(&mut self, mut k: Kids, span: Span) -> Map {
        let title = self.string(k.next());
        let supplied = self.supplied(k.opt(Rule::supplied));
        let mut m = Map {
            title,
            supplied,
            grid: None,
            default_terrain: None,
            terrain: Vec::new(),
            hexsides: Vec::new(),
            regions: Vec::new(),
            exit_edges: Vec::new(),
            ids: None,
            areas: Vec::new(),
            borders: Vec::new(),
            span,
        };
        for item in k.rest() {
            let item = Kids::of(item).next();
            let ispan = self.span(&item);
            let rule = item.as_rule();
            let mut ik = Kids::of(item);
            match rule {
                Rule::grid_clause => {
                    let cols = self.int(ik.next());
                    let rows = self.int(ik.next());
                    let even_down = ik.next().as_str() == "even_down";
                    m.grid = Some(Grid { cols, rows, even_down, span: ispan });
                }
                Rule::map_default => m.default_terrain = Some(self.ident(ik.next())),
                Rule::map_ids => {
                    let row_first = ik.next().as_str() == "RRCC";
                    let mut ids = IdsClause { row_first, first_col: None, first_row: None, span: ispan };
                    for n in ik.rest() {
                        let cols = n.as_rule() == Rule::ids_cols;
                        let v = Some(self.int(Kids::of(n).next()));
                        if cols {
                            ids.first_col = v;
                        } else {
                            ids.first_row = v;
                        }
                    }
                    m.ids = Some(ids);
                }
                Rule::map_areas => {
                    for a in ik.rest() {
                        let aspan = self.span(&a);
                        let mut ak = Kids::of(a);
                        let name = self.ident(ak.next());
                        let mut terrain = None;
                        let mut attrs = Vec::new();
                        for x in ak.rest() {
                            match x.as_rule() {
                                Rule::ident => terrain = Some(self.ident(x)),
                                Rule::attr_block => {
                                    attrs = x
                                        .into_inner()
                                        .map(|at| {
                                            let mut atk = Kids::of(at);
                                            let name = self.ident(atk.next());
                                            let value = self.literal(atk.next());
                                            Attr { name, value }
                                        })
                                        .collect();
                                }
                                _ => {}
                            }
                        }
                        m.areas.push(AreaDecl { name, terrain, attrs, span: aspan });
                    }
                }
                Rule::map_borders => {
                    for b in ik.rest() {
                        let bspan = self.span(&b);
                        let mut bk = Kids::of(b);
                        let item = self.side_item(bk.next());
                        let kinds = bk.rest().map(|x| self.ident(x)).collect();
                        m.borders.push(BorderDecl { item, kinds, span: bspan });
                    }
                }
                Rule::map_terrain | Rule::map_region => {
                    let name = self.ident(ik.next());
                    let hexes = ik.rest().map(|h| self.hex_item(h)).collect();
                    if rule == Rule::map_terrain {
                        m.terrain.push((name, hexes));
                    } else {
                        m.regions.push((name, hexes));
                    }
                }
                Rule::map_hexside => {
                    let name = self.ident(ik.next());
                    let sides = ik.rest().map(|s| self.side_item(s)).collect();
                    m.hexsides.push((name, sides));
                }
                _ => m.exit_edges.push(self.ident(ik.next())),
            }
        }
        m
    }

    fn side_item(&self, s: P) -> SideItem {
        let s = Kids::of(s).next();
        if s.as_rule() == Rule::side_path {
            SideItem::Path(s.into_inner().map(|h| self.hex_lit(h)).collect())
        } else {
            let mut sk = Kids::of(s);
            let a = self.hex_lit(sk.next());
            SideItem::Pair(a, self.hex_lit(sk.next()))
        }
    }

    fn hex_item(&self, p: P) -> HexItem {
        let h = Kids::of(p).next();
        if h.as_rule() == Rule::hex_rect {
            let mut hk = Kids::of(h);
            let a = self.hex_lit(hk.next());
            HexItem::Rect(a, self.hex_lit(hk.next()))
        } else {
            HexItem::One(self.hex_lit(h))
        }
    }

    fn counter(&mut self, p: P) -> Counter {
        let span = self.span(&p);
        let mut k = Kids::of(p);
        let side = self.ident(k.next());
        let name_p = k.next();
        let name_span = self.span(&name_p);
        let name = self.string(name_p);
        let unit_type = self.ident(k.next());
        let mut values = Vec::new();
        let mut face_values = Vec::new();
        for v in k.rest() {
            if v.as_rule() == Rule::counter_face {
                let mut fk = Kids::of(v);
                let face = self.ident(fk.next());
                let vals = fk.rest().map(|cv| self.counter_value(cv)).collect();
                face_values.push((face, vals));
            } else {
                values.push(self.counter_value(v));
            }
        }
        Counter { side, name, name_span, unit_type, values, face_values, span }
    }

    fn counter_value(&mut self, v: P) -> (Ident, Vec<i64>) {
        let mut vk = Kids::of(v);
        let name = self.ident(vk.next());
        let vals = vk.rest().map(|i| self.int(i)).collect();
        (name, vals)
    }

    fn scenario(&mut self, mut k: Kids, span: Span) -> Scenario {
        let id = self.string(k.next());
        let title = self.string(k.next());
        let mut s = Scenario {
            id,
            title,
            turns: None,
            first_turn: None,
            order: Vec::new(),
            track_starts: Vec::new(),
            flags: Vec::new(),
            setups: Vec::new(),
            span,
        };
        for item in k.rest() {
            let item = Kids::of(item).next();
            let ispan = self.span(&item);
            let rule = item.as_rule();
            let mut ik = Kids::of(item);
            match rule {
                Rule::sc_turns => {
                    let i = ik.next();
                    let sp = self.span(&i);
                    s.turns = Some((self.int(i), sp));
                }
                Rule::sc_first => {
                    ik.opt(Rule::turn_kw);
                    let i = ik.next();
                    let sp = self.span(&i);
                    s.first_turn = Some((self.int(i), sp));
                }
                Rule::sc_order => s.order = self.ident_list(ik.next()),
                Rule::sc_track => {
                    let track = self.ident(ik.next());
                    let mut values = Vec::new();
                    while let Some(side) = ik.opt(Rule::ident) {
                        let side = self.ident(side);
                        let v = self.int(ik.next());
                        values.push((side, v));
                    }
                    s.track_starts.push(TrackStart { track, values, span: ispan });
                }
                Rule::sc_flag => {
                    let name = self.ident(ik.next());
                    s.flags.push((name, ik.next().as_str() == "true"));
                }
                _ => {
                    let anchor = ik.opt(Rule::anchor).map(|a| self.anchor(a));
                    let side = self.ident(ik.next());
                    let supplied = self.supplied(ik.opt(Rule::supplied));
                    let placements = ik.rest().map(|p| self.placement(p)).collect();
                    s.setups.push(Setup { anchor, side, supplied, placements, span: ispan });
                }
            }
        }
        s
    }

    fn placement(&mut self, p: P) -> Placement {
        let mut k = Kids::of(p);
        let unit_p = k.next();
        let unit_span = self.span(&unit_p);
        let unit = self.string(unit_p);
        let mut wk = Kids::of(k.next());
        let arrives = wk.opt(Rule::arrives_kw).is_some();
        let turn_p = wk.opt(Rule::int);
        let enters_span = turn_p.as_ref().map(|i| self.span(i));
        let enters_turn = turn_p.map(|i| self.int(i));
        let hex = self.hex_lit(wk.next());
        let start = self.unit_start(k.rest());
        Placement { unit, unit_span, hex, enters_turn, enters_span, arrives, start }
    }

    /// `facing [vertex] N` and `in Face` after a placement.
    fn unit_start<'a>(&mut self, opts: impl Iterator<Item = P<'a>>) -> UnitStart {
        let mut start = UnitStart::default();
        for o in opts {
            let Some(o) = o.into_inner().next() else { continue };
            let span = self.span(&o);
            match o.as_rule() {
                Rule::placement_facing => {
                    let mut vertex = false;
                    let mut n = 0;
                    for x in o.into_inner() {
                        match x.as_rule() {
                            Rule::vertex_kw => vertex = true,
                            Rule::int => n = self.int(x),
                            _ => {}
                        }
                    }
                    start.facing = Some((n, vertex, span));
                }
                _ => {
                    if let Some(i) = o.into_inner().next() {
                        start.face = Some(self.ident(i));
                    }
                }
            }
        }
        start
    }

    fn formations(&mut self, mut k: Kids) -> DeclKind {
        let unit = self.ident(k.next());
        let mut faces = Vec::new();
        let mut changes = Vec::new();
        for item in k.rest() {
            let Some(x) = item.into_inner().next() else { continue };
            let span = self.span(&x);
            let rule = x.as_rule();
            let mut anchors = Vec::new();
            let mut idents = Vec::new();
            let mut both = false;
            let mut classes = None;
            let mut ratings = Vec::new();
            for c in x.into_inner() {
                match c.as_rule() {
                    Rule::anchor => anchors.push(self.anchor(c)),
                    Rule::ident => idents.push(self.ident(c)),
                    Rule::face_arrow => both = c.as_str() == "<->",
                    Rule::face_classes => {
                        if let Some(l) = c.into_inner().next() {
                            classes = Some(self.ident_list(l));
                        }
                    }
                    Rule::face_ratings => {
                        for v in c.into_inner() {
                            let mut vk = Kids::of(v);
                            let name = self.ident(vk.next());
                            let vals = vk.rest().map(|i| self.int(i)).collect();
                            ratings.push((name, vals));
                        }
                    }
                    _ => {}
                }
            }
            let mut it = idents.into_iter();
            let Some(first) = it.next() else { continue };
            if rule == Rule::face_change {
                let Some(to) = it.next() else { continue };
                changes.push(FaceChange { anchors, from: first, to, both, span });
            } else {
                faces.push(Face { anchors, name: first, classes, ratings, span });
            }
        }
        DeclKind::Formations { unit, faces, changes }
    }

    fn example_item(&mut self, p: P) -> ExampleItem {
        let item = Kids::of(p).next();
        let span = self.span(&item);
        let rule = item.as_rule();
        let mut k = Kids::of(item);
        match rule {
            Rule::ex_scenario => ExampleItem::Scenario(self.string(k.next()), span),
            Rule::ex_place => {
                let unit = self.string(k.next());
                let hex = self.hex_lit(k.next());
                let start = self.unit_start(k.rest());
                ExampleItem::Place { unit, hex, span, start }
            }
            Rule::ex_dice => ExampleItem::Dice(k.rest().map(|i| self.int(i)).collect(), span),
            Rule::ex_run => {
                let procedure = self.ident(k.next());
                let args = k.rest().map(|e| self.expr(e)).collect();
                ExampleItem::Run { procedure, args, span }
            }
            _ => ExampleItem::Expect(self.expr(k.next())),
        }
    }

    // ------------------------------------------------------------ statements

    /// Guard against input nested so deeply that lowering would exhaust the stack.
    fn enter(&mut self, span: Span) -> bool {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            if !self.diags.iter().any(|d| d.code == "E0001" && d.message.contains("nested")) {
                self.diags.push(Diagnostic::error(
                    "E0001",
                    span,
                    format!("expressions and blocks are nested more than {MAX_DEPTH} deep"),
                ));
            }
            return false;
        }
        true
    }

    fn block(&mut self, p: P) -> Block {
        let span = self.span(&p);
        if !self.enter(span) {
            self.depth -= 1;
            return Block { stmts: Vec::new(), span };
        }
        let stmts = p.into_inner().map(|s| self.stmt(s)).collect();
        self.depth -= 1;
        Block { stmts, span }
    }

    fn stmt(&mut self, p: P) -> Stmt {
        let span = self.span(&p);
        let mut k = Kids::of(p);
        let (anchor, also) = self.anchors(&mut k);
        let body = Kids::of(k.next()).next();
        let kind = self.stmt_kind(body);
        Stmt { anchor, also, kind, span }
    }

    /// Leading anchors: the first, and any further ones.
    fn anchors(&mut self, k: &mut Kids) -> (Option<Anchor>, Vec<Anchor>) {
        let mut all = Vec::new();
        while let Some(a) = k.opt(Rule::anchor) {
            all.push(self.anchor(a));
        }
        let mut it = all.into_iter();
        (it.next(), it.collect())
    }

    fn stmt_kind(&mut self, p: P) -> StmtKind {
        let rule = p.as_rule();
        let mut k = Kids::of(p);
        match rule {
            Rule::sealed_stmt => StmtKind::Sealed(self.block(k.next())),
            Rule::set_stmt if k.it.clone().nth(1).map(|p| p.as_rule()) == Some(Rule::track_keys) => {
                let track = self.ident(k.next());
                let index = k.next().into_inner().map(|e| self.expr(e)).collect();
                StmtKind::SetTrack { track, index, value: self.expr(k.next()) }
            }
            Rule::reveal_stmt => {
                let _kw = k.next();
                let value = self.expr(k.next());
                let by = self.expr(k.next());
                let what = self.string(k.next());
                StmtKind::Reveal { value, by, what }
            }
            Rule::clear_stmt => {
                let _kw = k.next();
                let track = self.ident(k.next());
                let index =
                    k.it.next().map(|ix| ix.into_inner().map(|e| self.expr(e)).collect()).unwrap_or_default();
                StmtKind::ClearTrack { track, index }
            }
            Rule::let_stmt | Rule::set_stmt => {
                let name = self.ident(k.next());
                let value = self.expr(k.next());
                if rule == Rule::let_stmt {
                    StmtKind::Let { name, value }
                } else {
                    StmtKind::Set { name, value }
                }
            }
            Rule::if_stmt => {
                let cond = self.expr(k.next());
                let then = self.block(k.next());
                let (anchor, also) = self.anchors(&mut k);
                let els = k.it.next().map(|e| {
                    if e.as_rule() == Rule::block {
                        self.block(e)
                    } else {
                        // `else if`: a block holding the one nested `if` statement. It
                        // nests like a block, so it counts toward the nesting limit.
                        let span = self.span(&e);
                        if !self.enter(span) {
                            self.depth -= 1;
                            return Block { stmts: Vec::new(), span };
                        }
                        let kind = self.stmt_kind(e);
                        self.depth -= 1;
                        Block { stmts: vec![Stmt { anchor, also, kind, span }], span }
                    }
                });
                StmtKind::If { cond, then, els }
            }
            Rule::for_stmt => {
                let var = self.ident(k.next());
                let iter = self.expr(k.next());
                let body = self.block(k.next());
                StmtKind::For { var, iter, body }
            }
            Rule::while_stmt => {
                let cond = self.expr(k.next());
                StmtKind::While { cond, body: self.block(k.next()) }
            }
            Rule::turns_stmt => {
                let count = self.expr(k.next());
                StmtKind::Turns { count, body: self.block(k.next()) }
            }
            Rule::phase_stmt => {
                let name = self.ident(k.next());
                let side = self.expr(k.next());
                StmtKind::Phase { name, side, body: self.block(k.next()) }
            }
            Rule::call_stmt => {
                let name = self.ident(k.next());
                let args = k.next().into_inner().map(|e| self.expr(e)).collect();
                StmtKind::Call { name, args }
            }
            Rule::return_stmt => StmtKind::Return(k.it.next().map(|e| self.expr(e))),
            Rule::break_stmt => StmtKind::Break,
            Rule::move_stmt => {
                let unit = self.expr(k.next());
                StmtKind::Move { unit, to: self.expr(k.next()) }
            }
            Rule::eliminate_stmt => StmtKind::Eliminate(self.expr(k.next())),
            Rule::remove_stmt => StmtKind::Remove(self.expr(k.next())),
            Rule::lose_step_stmt => StmtKind::LoseStep(self.expr(k.next())),
            Rule::regain_step_stmt => StmtKind::RegainStep(self.expr(k.next())),
            Rule::face_stmt => {
                let _kw = k.next();
                let unit = self.expr(k.next());
                let vertex = k.opt(Rule::vertex_kw).is_some();
                StmtKind::Face { unit, dir: self.expr(k.next()), vertex }
            }
            Rule::form_stmt => {
                let _kw = k.next();
                let unit = self.expr(k.next());
                let f = self.ident(k.next());
                let formation = Expr { span: f.span, kind: ExprKind::Name(f.name) };
                StmtKind::Form { unit, formation }
            }
            Rule::mark_stmt | Rule::unmark_stmt => {
                let target = self.expr(k.next());
                let marker = self.ident(k.next());
                if rule == Rule::mark_stmt {
                    StmtKind::Mark { target, marker }
                } else {
                    StmtKind::Unmark { target, marker }
                }
            }
            Rule::adjust_stmt => {
                let track = self.ident(k.next());
                let mut index = None;
                let mut index2 = None;
                if let Some(keys) = k.opt(Rule::track_keys) {
                    let mut it = keys.into_inner();
                    index = it.next().map(|e| self.expr(e));
                    index2 = it.next().map(|e| self.expr(e));
                }
                StmtKind::Adjust { track, index, index2, by: self.expr(k.next()) }
            }
            Rule::retreat_stmt => {
                let unit = self.expr(k.next());
                let hexes = self.expr(k.next());
                let to = k.opt(Rule::retreat_to).map(|t| self.expr(Kids::of(t).next()));
                StmtKind::Retreat { unit, hexes, to }
            }
            Rule::win_stmt => {
                let side = self.expr(k.next());
                StmtKind::Win { side, reason: self.string(k.next()) }
            }
            Rule::draw_stmt => StmtKind::Draw { reason: self.string(k.next()) },
            Rule::put_stmt => {
                let value = self.expr(k.next());
                let cup = self.ident(k.next());
                StmtKind::Put { value, cup }
            }
            Rule::empty_stmt => StmtKind::Empty(self.ident(k.next())),
            Rule::deal_stmt => {
                let deck = self.ident(k.next());
                let hand = self.ident(k.next());
                StmtKind::DrawCard { deck, hand, side: self.expr(k.next()) }
            }
            Rule::discard_stmt | Rule::play_stmt => {
                let _kw = k.next();
                let card = self.expr(k.next());
                let hand = self.ident(k.next());
                StmtKind::CardOut { card, hand, side: self.expr(k.next()), play: rule == Rule::play_stmt }
            }
            Rule::reshuffle_stmt => {
                let _kw = k.next();
                StmtKind::Reshuffle(self.ident(k.next()))
            }
            Rule::transfer_stmt => {
                let _kw = k.next();
                let unit = self.expr(k.next());
                StmtKind::Transfer { unit, side: self.expr(k.next()) }
            }
            Rule::log_stmt => {
                let message = self.string(k.next());
                let args = k.rest().map(|e| self.expr(e)).collect();
                StmtKind::Log { message, args }
            }
            other => unreachable!("grammar and lowering disagree: stmt {other:?}"),
        }
    }

    // ------------------------------------------------------------ expressions

    /// Lower any expression-level pair (`expr`, `or_expr`, ..., `primary`). Levels with a
    /// single child are skipped in a loop, so the recursion depth follows the nesting
    /// the user wrote, not the number of precedence levels.
    ///
    /// Also measures the height of the tree it builds. Operator chains (`a + b + c`,
    /// `u.a.b`, `x[1][2]`) are lowered in a loop but nest one node per operator, and
    /// every later stage walks the tree recursively: an expression whose height plus the
    /// blocks and expressions around it passes [`MAX_DEPTH`] is refused (E0004) before
    /// its tree is built, so no stage can exhaust its stack on it.
    fn expr(&mut self, p: P) -> Expr {
        let outer = std::mem::take(&mut self.h_children);
        let outer_node = self.h_node.take();
        let e = self.expr_levels(p);
        let h = self.h_node.take().unwrap_or(self.h_children.saturating_add(1));
        self.h_node = outer_node;
        self.h_children = outer.max(h);
        self.h_last = h;
        e
    }

    /// Refuse an operator chain that makes its expression too deep: E0004, once per
    /// file. Returns false when the chain must stop.
    fn chain_fits(&mut self, height: u32, ops: usize, span: Span) -> bool {
        if self.depth.saturating_add(height) <= MAX_DEPTH {
            return true;
        }
        if !self.diags.iter().any(|d| d.code == "E0004") {
            self.diags.push(
                Diagnostic::error(
                    "E0004",
                    span,
                    format!(
                        "this expression is nested more than {MAX_DEPTH} deep: a chain of operators \
                         counts one level per operator (refused at operator {ops} of the chain)"
                    ),
                )
                .with_note("split the chain, e.g. into helper functions or `let` steps"),
            );
        }
        false
    }

    fn expr_levels(&mut self, p: P) -> Expr {
        let mut p = p;
        let mut paren: Option<Span> = None;
        let mut parens: u32 = 0;
        while is_expr_level(p.as_rule()) {
            let mut it = p.clone().into_inner();
            let first = it.next().expect("grammar and lowering disagree: empty expr");
            if it.next().is_some() {
                break;
            }
            if p.as_rule() == Rule::primary && first.as_rule() == Rule::expr {
                // `( expr )`: the expression's span includes the parentheses.
                paren.get_or_insert(self.span(&p));
                parens += 1;
            }
            p = first;
        }
        // Parentheses are lowered in a loop, but count toward the nesting limit all the same.
        if parens > MAX_DEPTH {
            let span = self.span(&p);
            self.depth += parens;
            let ok = self.enter(span);
            self.depth -= parens + 1;
            if !ok {
                return Expr { kind: ExprKind::Int(0), span };
            }
        }
        let span = self.span(&p);
        if !self.enter(span) {
            self.depth -= 1;
            return Expr { kind: ExprKind::Int(0), span };
        }
        let mut e = self.expr_node(p);
        self.depth -= 1;
        if let Some(s) = paren {
            e.span = s;
        }
        e
    }

    /// A `fn` body block `{ let a = e; ...; result }`: nested `Let` expressions.
    fn fn_block(&mut self, p: P) -> Expr {
        let block_span = self.span(&p);
        let mut lets = Vec::new();
        let mut result = None;
        for c in p.into_inner() {
            if c.as_rule() == Rule::let_stmt {
                let start = self.span(&c).start;
                let mut k = Kids::of(c);
                let name = self.ident(k.next());
                let value = self.expr(k.next());
                lets.push((start, name, value));
            } else {
                result = Some(self.expr(c));
            }
        }
        if lets.len() as u32 > MAX_DEPTH {
            self.diags.push(Diagnostic::error(
                "E0004",
                block_span,
                format!("this fn body binds more than {MAX_DEPTH} names: split it into helper functions"),
            ));
            lets.truncate(MAX_DEPTH as usize);
        }
        let mut e = result.unwrap_or(Expr { kind: ExprKind::Int(0), span: block_span });
        for (start, name, value) in lets.into_iter().rev() {
            let span = Span { start, ..block_span };
            e = Expr { kind: ExprKind::Let { name, value: Box::new(value), body: Box::new(e) }, span };
        }
        e
    }

    fn boxed(&mut self, p: P) -> Box<Expr> {
        Box::new(self.expr(p))
    }

    fn expr_node(&mut self, p: P) -> Expr {
        let span = self.span(&p);
        let rule = p.as_rule();
        let kind = match rule {
            Rule::if_expr => {
                let mut k = Kids::of(p);
                let c = self.boxed(k.next());
                let t = self.boxed(k.next());
                let e = self.boxed(k.next());
                ExprKind::If(c, t, e)
            }
            Rule::op_expr | Rule::arith_expr => return self.op_chain(p),
            Rule::postfix => return self.postfix(p),
            Rule::int => ExprKind::Int(self.int(p)),
            Rule::bool_lit => ExprKind::Bool(p.as_str() == "true"),
            Rule::string => ExprKind::Str(self.string(p)),
            Rule::hex_ref => ExprKind::Hex(Kids::of(p).next().as_str().to_string()),
            Rule::ident => ExprKind::Name(p.as_str().to_string()),
            Rule::roll_expr => ExprKind::Roll(self.dice(Kids::of(p).next())),
            Rule::roll_pool => {
                let mut k = Kids::of(p);
                let count = k.next();
                let count = match count.clone().into_inner().next() {
                    Some(inner) => self.boxed(inner),
                    None => self.boxed(count),
                };
                let die = k.next();
                let dspan = self.span(&die);
                let sides = match die.as_str()[1..].parse::<u32>() {
                    Ok(s) if s > 0 => s,
                    _ => {
                        self.diags.push(Diagnostic::error(
                            "E0002",
                            dspan,
                            format!("dice `{}`: dice must have from 1 to {} sides", die.as_str(), u32::MAX),
                        ));
                        1
                    }
                };
                ExprKind::RollPool { count, sides }
            }
            Rule::draw_expr => ExprKind::DrawFrom(self.ident(Kids::of(p).next())),
            Rule::call_expr => {
                let mut k = Kids::of(p);
                let name = self.ident(k.next());
                let args = k.next().into_inner().map(|a| self.expr(a)).collect();
                ExprKind::Call(name, args)
            }
            Rule::list_expr => ExprKind::List(p.into_inner().map(|e| self.expr(e)).collect()),
            Rule::choose_expr => {
                let mut k = Kids::of(p);
                let var = self.ident(k.next());
                let from = self.boxed(k.next());
                let by = self.boxed(k.next());
                let secret = k.opt(Rule::secret_kw).is_some();
                let private = k.opt(Rule::private_kw).is_some();
                let prefer = k.opt(Rule::prefer_clause).map(|c| self.boxed(c));
                let none = k.opt(Rule::or_none);
                let or_none = none.is_some();
                let none_score =
                    none.and_then(|p| p.into_inner().next()).map(|np| self.boxed(Kids::of(np).next()));
                let what = self.string(k.next());
                ExprKind::Choose { var, from, by, prefer, or_none, none_score, secret, private, what }
            }
            Rule::quant_expr => {
                let mut k = Kids::of(p);
                let q = match k.next().as_str() {
                    "sum" => Quant::Sum,
                    "count" => Quant::Count,
                    "any" => Quant::Any,
                    "all" => Quant::All,
                    "min" => Quant::Min,
                    "max" => Quant::Max,
                    "map" => Quant::Map,
                    "argmax" => Quant::ArgMax,
                    "argmin" => Quant::ArgMin,
                    _ => Quant::Filter,
                };
                let var = self.ident(k.next());
                let iter = self.boxed(k.next());
                let filter = k.opt(Rule::where_clause).map(|c| self.boxed(c));
                let body = k.opt(Rule::body_clause).map(|c| self.boxed(c));
                ExprKind::Quant { q, var, iter, filter, body }
            }
            other => unreachable!("grammar and lowering disagree: expr {other:?}"),
        };
        Expr { kind, span }
    }

    /// An operator expression (`op_expr`, `arith_expr`): its operands (`postfix`) and
    /// operators come flat, in the order written, and precedence is applied here by
    /// operator precedence parsing with two explicit stacks (no recursion, so a long run
    /// of operators cannot exhaust the stack): `or` < `and` < `not` < comparison < `+ -`
    /// < `* / %` < unary minus. Binary operators associate to the left (the grammar lets
    /// no comparison chain). A node spans from its left operand, or its prefix operator,
    /// to the end of its right operand. Heights are measured as the tree is built: a
    /// binary node past [`MAX_DEPTH`] is refused with E0004 ([`Lower::chain_fits`]), a
    /// run of prefix operators nests like parentheses (E0001 past the limit).
    fn op_chain(&mut self, p: P) -> Expr {
        let whole = self.span(&p);
        let mut operands: Vec<Operand> = Vec::new();
        let mut pending: Vec<Pending> = Vec::new();
        let mut reduced = 0usize;
        let mut prefixes: u32 = 0;
        let mut kids = p.into_inner().peekable();
        while let Some(k) = kids.next() {
            let rule = k.as_rule();
            match rule {
                Rule::not_kw | Rule::neg => {
                    let start = k.as_span().start();
                    // `-5` is the literal -5 (which also makes i64::MIN writable).
                    if rule == Rule::neg {
                        if let Some(lit) = kids.peek().and_then(int_literal) {
                            let end = kids.next().map(|o| self.span(&o).end as usize).unwrap_or(start);
                            let span = Span::new(self.file, start, end);
                            if !self.prefixes_fit(prefixes, span) {
                                return Expr { kind: ExprKind::Int(0), span: whole };
                            }
                            let text = format!("-{}", lit.as_str());
                            let e = Expr { kind: ExprKind::Int(self.int_text(&text, span)), span };
                            operands.push(Operand { e, h: 1, start, end });
                            prefixes = 0;
                            continue;
                        }
                    }
                    pending.push(Pending::Prefix { not: rule == Rule::not_kw, start });
                    prefixes += 1;
                }
                Rule::postfix => {
                    let sp = self.span(&k);
                    let (start, end) = (sp.start as usize, sp.end as usize);
                    if !self.prefixes_fit(prefixes, sp) {
                        return Expr { kind: ExprKind::Int(0), span: whole };
                    }
                    // The operand sits inside the prefix operators before it.
                    self.depth += prefixes;
                    let e = self.expr(k);
                    self.depth -= prefixes;
                    prefixes = 0;
                    operands.push(Operand { e, h: self.h_last, start, end });
                }
                _ => {
                    let op = match (rule, k.as_str()) {
                        (Rule::or_kw, _) => BinOp::Or,
                        (Rule::and_kw, _) => BinOp::And,
                        (_, "+") => BinOp::Add,
                        (_, "-") => BinOp::Sub,
                        (_, "*") => BinOp::Mul,
                        (_, "/") => BinOp::Div,
                        (_, "%") => BinOp::Rem,
                        (_, "==") => BinOp::Eq,
                        (_, "!=") => BinOp::Ne,
                        (_, "<=") => BinOp::Le,
                        (_, ">=") => BinOp::Ge,
                        (_, "<") => BinOp::Lt,
                        _ => BinOp::Gt,
                    };
                    let prec = binding(op);
                    while pending.last().is_some_and(|t| t.prec() >= prec) {
                        if !self.reduce(&mut operands, &mut pending, &mut reduced) {
                            return Expr { kind: ExprKind::Int(0), span: whole };
                        }
                    }
                    pending.push(Pending::Infix(op));
                }
            }
        }
        while !pending.is_empty() {
            if !self.reduce(&mut operands, &mut pending, &mut reduced) {
                return Expr { kind: ExprKind::Int(0), span: whole };
            }
        }
        match operands.pop() {
            Some(o) => {
                self.h_node = Some(o.h);
                o.e
            }
            None => unreachable!("grammar and lowering disagree: an operator expression without operands"),
        }
    }

    /// A run of `n` prefix operators nests its operand `n` deep, as parentheses would:
    /// false (E0001, as [`Lower::enter`] reports it) when that passes [`MAX_DEPTH`].
    fn prefixes_fit(&mut self, n: u32, span: Span) -> bool {
        if self.depth.saturating_add(n) < MAX_DEPTH {
            return true;
        }
        let depth = self.depth;
        self.depth = MAX_DEPTH;
        self.enter(span);
        self.depth = depth;
        self.h_node = Some(1);
        false
    }

    /// Apply the operator on top of `pending` to the operands it takes. False when the
    /// tree would be too deep (E0004 reported; the rest of the chain is not lowered).
    fn reduce(
        &mut self,
        operands: &mut Vec<Operand>,
        pending: &mut Vec<Pending>,
        reduced: &mut usize,
    ) -> bool {
        let (Some(op), Some(rhs)) = (pending.pop(), operands.pop()) else {
            unreachable!("grammar and lowering disagree: an operator without its operand")
        };
        match op {
            Pending::Prefix { not, start } => {
                let span = Span::new(self.file, start, rhs.end);
                let kind = if not { ExprKind::Not(Box::new(rhs.e)) } else { ExprKind::Neg(Box::new(rhs.e)) };
                operands.push(Operand {
                    e: Expr { kind, span },
                    h: rhs.h.saturating_add(1),
                    start,
                    end: rhs.end,
                });
            }
            Pending::Infix(op) => {
                let Some(lhs) = operands.pop() else {
                    unreachable!("grammar and lowering disagree: a binary operator without its left operand")
                };
                let h = lhs.h.max(rhs.h).saturating_add(1);
                *reduced += 1;
                let span = Span::new(self.file, lhs.start, rhs.end);
                if !self.chain_fits(h, *reduced, span) {
                    self.h_node = Some(1);
                    return false;
                }
                let e = Expr { kind: ExprKind::Binary(op, Box::new(lhs.e), Box::new(rhs.e)), span };
                operands.push(Operand { e, h, start: lhs.start, end: rhs.end });
            }
        }
        true
    }

    fn postfix(&mut self, p: P) -> Expr {
        let mut k = Kids::of(p);
        let first = k.next();
        let start = first.as_span().start();
        let mut acc = self.expr(first);
        let mut height = self.h_last;
        let mut ops = 0usize;
        for op in k.rest() {
            let span = Span::new(self.file, start, self.span(&op).end as usize);
            ops += 1;
            if !self.chain_fits(height.saturating_add(1), ops, span) {
                self.h_node = Some(1);
                return Expr { kind: ExprKind::Int(0), span };
            }
            let op = Kids::of(op).next();
            let rule = op.as_rule();
            let mut ok = Kids::of(op);
            let kind = match rule {
                Rule::field => ExprKind::Field(Box::new(acc), self.ident(ok.next())),
                Rule::index => {
                    let a = self.boxed(ok.next());
                    let mut h = self.h_last;
                    let b = ok.it.next().map(|b| self.boxed(b));
                    if b.is_some() {
                        h = h.max(self.h_last);
                    }
                    height = height.max(h);
                    ExprKind::Index(Box::new(acc), a, b)
                }
                Rule::is_test => {
                    ok.next(); // is_kw
                    ExprKind::Is(Box::new(acc), self.ident(ok.next()))
                }
                _ => {
                    ok.next(); // has_kw
                    ExprKind::Has(Box::new(acc), self.ident(ok.next()))
                }
            };
            height = height.saturating_add(1);
            acc = Expr { kind, span };
        }
        self.h_node = Some(height);
        acc
    }
}

/// An operand of an operator expression being built, with its height and the source
/// range it covers (from the start of its first token to the end of its last operand).
struct Operand {
    e: Expr,
    h: u32,
    start: usize,
    end: usize,
}

/// An operator waiting for its right operand.
enum Pending {
    Prefix { not: bool, start: usize },
    Infix(BinOp),
}

impl Pending {
    fn prec(&self) -> u8 {
        match self {
            Pending::Prefix { not: true, .. } => 3,
            Pending::Prefix { not: false, .. } => 7,
            Pending::Infix(op) => binding(*op),
        }
    }
}

/// How tightly a binary operator binds: `or` 1, `and` 2, (`not` 3), comparisons 4,
/// `+ -` 5, `* / %` 6, (unary minus 7).
fn binding(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::And => 2,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 4,
        BinOp::Add | BinOp::Sub => 5,
        BinOp::Mul | BinOp::Div | BinOp::Rem => 6,
    }
}

/// Precedence levels and clauses that may wrap a single expression.
fn is_expr_level(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::expr
            | Rule::op_expr
            | Rule::arith_expr
            | Rule::postfix
            | Rule::primary
            | Rule::where_clause
            | Rule::body_clause
            | Rule::prefer_clause
    )
}

/// Maximal runs of trivia (whitespace and `//` comments) outside strings, as the
/// grammar's `WHITESPACE` and `COMMENT` define them.
fn trivia_runs(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        match b[i] {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        match runs.last_mut() {
            Some(last) if last.1 == start => last.1 = i,
            _ => runs.push((start, i)),
        }
    }
    runs
}

/// If `p` (the operand after a unary minus) is just an integer literal, that literal.
fn int_literal<'i>(p: &P<'i>) -> Option<P<'i>> {
    let mut p = p.clone();
    loop {
        match p.as_rule() {
            Rule::int => return Some(p),
            Rule::postfix | Rule::primary => {
                let mut it = p.clone().into_inner();
                let first = it.next()?;
                if it.next().is_some() {
                    return None;
                }
                p = first;
            }
            _ => return None,
        }
    }
}

/// `\"` -> `"` and `\\` -> `\`; other escapes are kept as written.
fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n @ ('"' | '\\')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The text of an anchor with runs of spaces collapsed to one.
fn normalise_anchor(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_space = false;
    for c in s.chars() {
        if c == ' ' {
            if !prev_space {
                out.push(' ');
            }
            prev_space = true;
        } else {
            out.push(c);
            prev_space = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_handles_quotes_and_backslashes() {
        assert_eq!(unescape(r#"a \"b\" \\ \n"#), "a \"b\" \\ \\n");
    }

    #[test]
    fn anchors_are_normalised() {
        assert_eq!(normalise_anchor("Rule   11 F"), "Rule 11 F");
    }
}
