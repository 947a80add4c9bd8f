//! Integration tests: for every check, small fixture texts (our own words) that
//! must be flagged and near misses that must not; the five rulebook texts with
//! hand-verified counts; the CLI contract; coverage; and a no-panic property.

use std::path::PathBuf;

use kriegsspiel_text::{
    check, coverage, detect, index, run_cli, validate, EncodedParagraph, EncodedStatus, Finding, Style,
    TextOptions,
};

fn style(name: &str) -> Style {
    Style::by_name(name).expect("built-in style")
}

fn findings(src: &str, style_name: &str) -> Vec<Finding> {
    let st = style(style_name);
    let idx = index(src, &st);
    check(src, &idx)
}

fn codes(src: &str, style_name: &str) -> Vec<&'static str> {
    findings(src, style_name).iter().map(|f| f.code).collect()
}

fn headings(src: &str, style_name: &str) -> Vec<String> {
    index(src, &style(style_name)).headings_only().map(|p| p.number.clone()).collect()
}

// ---------------------------------------------------------------- headings

#[test]
fn dotted_headings_and_items_are_indexed() {
    let src =
        "1.0 Opening\nSome words.\n1.1 Counters\nA. First item.\nB. Second item.\n1.1.1 Sizes\n2.0 Play\n";
    let idx = index(src, &style("dotted-lettered"));
    let nums: Vec<&str> = idx.paragraphs.iter().map(|p| p.number.as_str()).collect();
    assert_eq!(nums, ["1.0", "1.1", "1.1.A", "1.1.B", "1.1.1", "2.0"]);
    let p = idx.paragraphs.iter().find(|p| p.number == "1.1.1").unwrap();
    assert_eq!(p.parent.as_deref(), Some("1.1"));
    assert_eq!(p.title, "Sizes");
    assert_eq!(p.line, 6);
    assert!(codes(src, "dotted-lettered").is_empty());
}

#[test]
fn sentences_tables_bullets_and_contents_are_not_headings() {
    let src = "Table of Contents\n- 1.0 Opening\n- 2.0 Play\n1.0 Opening\n1.5 times the usual cost is paid when crossing.\n- 1.2 Bulleted line\n| 1.3 | A table cell |\n2.0 Play\n";
    assert_eq!(headings(src, "dotted-lettered"), ["1.0", "2.0"]);
    assert!(codes(src, "dotted-lettered").is_empty());
}

#[test]
fn implied_depth_numbers_nest() {
    let src = "9.0 Fighting\n9.1 Method\n9.11 Who Joins\n9.12 Order\n9.2 Supplies\n10.0 Sieges\n";
    let idx = index(src, &style("decimal-implied"));
    let p = idx.paragraphs.iter().find(|p| p.number == "9.12").unwrap();
    assert_eq!(p.parent.as_deref(), Some("9.1"));
    assert!(codes(src, "decimal-implied").is_empty());
}

#[test]
fn two_column_cases_start_mid_line() {
    let src = "1.0 BASICS Opening words run on here.\n1.1 GENERAL POINTS\n1.11 General. Words of the first case. 1.12 Second. More words.\nOther column text. 1.13 Third. Text.\n";
    assert_eq!(headings(src, "case-implied"), ["1.0", "1.1", "1.11", "1.12", "1.13"]);
    assert!(codes(src, "case-implied").is_empty());
    // A reference that ends a sentence is not a new case.
    let near = "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 General. As in 1.12. Then more.\n1.12 Second. Text.\n";
    assert_eq!(headings(near, "case-implied"), ["1.0", "1.1", "1.11", "1.12"]);
}

#[test]
fn detection_picks_the_fitting_style() {
    let bracketed = "PART ONE: STANDARD RULES\n\nBASICS\n\n[1.] Words.\n\n[2.] More.\n\n[3.] Yet more.\n";
    assert_eq!(detect(bracketed).name, "bracketed-parts");
    let rules = "Rule 1: Opening\n\nWords.\n\nRule 2: Moving\n\nA. Item.\n\nRule 3: Fighting\n";
    assert_eq!(detect(rules).name, "rule-lettered");
    let implied = "1.0 Opening\n1.1 Parts\n1.11 Small\n1.12 Smaller\n1.2 Next\n2.0 Play\n";
    assert_eq!(detect(implied).name, "decimal-implied");
    let dotted = "1.0 Opening\n1.1 Parts\n1.1.1 Small\n1.1.2 Smaller\n1.2 Next\n2.0 Play\n";
    assert_eq!(detect(dotted).name, "dotted-lettered");
}

// ---------------------------------------------------------------- numbering

#[test]
fn numbering_skip_is_flagged() {
    let src = "1.0 Opening\n1.1 Parts\n1.3 More Parts\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0001"]);
    let f = &findings(src, "dotted-lettered")[0];
    assert!(f.message.contains("1.2 missing"), "{}", f.message);
    assert_eq!(f.paragraph.as_deref(), Some("1.3"));
}

#[test]
fn numbering_near_misses_pass() {
    // Children, returns to a higher level, two-digit siblings.
    let src = "1.0 A\n1.1 B\n1.1.1 C\n1.1.2 D\n1.2 E\n2.0 F\n2.1 G\n2.2 H\n2.3 I\n2.4 J\n2.5 K\n2.6 L\n2.7 M\n2.8 N\n2.9 O\n2.10 P\n3.0 Q\n";
    assert!(codes(src, "dotted-lettered").is_empty());
}

#[test]
fn repeated_number_is_flagged() {
    assert_eq!(codes("1.0 A\n1.1 B\n1.1 C\n", "dotted-lettered"), ["T0002"]);
}

#[test]
fn backwards_number_is_flagged() {
    let src = "1.0 A\n1.1 B\n2.0 C\n2.1 D\n1.2 E\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0003"]);
}

#[test]
fn missing_parent_is_flagged() {
    let src = "1.0 A\n1.1 B\n1.1.1 C\n1.2.3 D\n2.0 E\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0004"]);
}

#[test]
fn wrong_parent_is_flagged_at_the_outlier() {
    // 4.4.3 stands where 4.1.3 belongs.
    let src = "4.0 A\n4.1 B\n4.1.1 C\n4.1.2 D\n4.4.3 E\n4.1.4 F\n4.2 G\n";
    let f = findings(src, "dotted-lettered");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, "T0005");
    assert!(f[0].message.contains("4.4.3"));
    assert!(f[0].notes.iter().any(|n| n.contains("4.1.3")));
}

#[test]
fn one_slip_is_reported_once() {
    // 3.4 stands where 3.3 belongs and the real 3.4 follows: one finding, not a
    // misplacement, a repeat and a skip.
    let src = "3.0 Moves\n3.1 Alpha\n3.2 Beta\n3.4 Gamma\n3.4 Delta\n3.5 Eps\n";
    let f = findings(src, "dotted-lettered");
    assert_eq!(f.iter().map(|f| f.code).collect::<Vec<_>>(), ["T0007"], "{f:?}");
    assert!(f[0].message.contains("expects 3.3"), "{}", f[0].message);
    assert_eq!(&src[f[0].start..f[0].end], "3.4 Gamma");
    // Near miss: a real skip with no repeat stays a skip.
    assert_eq!(codes("3.0 Moves\n3.1 Alpha\n3.3 Gamma\n3.4 Delta\n", "dotted-lettered"), ["T0001"]);
    // Two-column text: 1.443 where 1.143 belongs (1.443 exists later): one T0002
    // that names 1.143, and no gap for 1.143.
    let src = "1.0 POLITICS\n1.1 STANCES\n1.11 One. W.\n1.12 Two. W.\n1.13 Three. W.\n1.14 Checks. W.\n\
               1.141 One. W.\n1.142 Two. W.\n1.443 Three. W.\n1.144 Four. W.\n1.145 Five. W.\n1.146 Six. W.\n\
               1.2 MORE\n1.21 One. W.\n1.3 EVEN MORE\n1.31 One. W.\n1.4 THE DIET\n1.41 One. W.\n1.42 Two. W.\n\
               1.43 Three. W.\n1.44 Seats. W.\n1.441 One. W.\n1.442 Two. W.\n1.443 Three. W.\n";
    let f = findings(src, "case-implied");
    assert_eq!(f.iter().map(|f| f.code).collect::<Vec<_>>(), ["T0002"], "{f:?}");
    assert!(f[0].notes.iter().any(|n| n.contains("probably 1.143")), "{:?}", f[0].notes);
    assert_eq!(f[0].line, 9);
    // Near miss: the repeat is two digits away from the gap (1.442 for 1.143): both reported.
    let src = src.replace("1.142 Two. W.\n1.443", "1.142 Two. W.\n1.442");
    let f = findings(&src, "case-implied");
    let mut c: Vec<&str> = f.iter().map(|f| f.code).collect();
    c.sort();
    assert_eq!(c, ["T0001", "T0002"], "{f:?}");
}

#[test]
fn two_column_numbering_uses_set_checks() {
    // Out of line order is fine in two-column text; a gap and a repeat are not.
    let fine = "1.0 BASICS\n1.12 Second. Words.\n1.1 GENERAL POINTS\n1.11 First. Words.\n";
    assert!(codes(fine, "case-implied").is_empty());
    let gap = "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 First. Words.\n1.13 Third. Words.\n";
    assert_eq!(codes(gap, "case-implied"), ["T0001"]);
    let twice =
        "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 First. Words.\n1.12 Second. Words.\n1.12 Again. Words.\n";
    assert_eq!(codes(twice, "case-implied"), ["T0002"]);
    let orphan = "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 First. Words.\n1.231 Stray. Words.\n";
    assert_eq!(codes(orphan, "case-implied"), ["T0004"]);
}

#[test]
fn lettered_items_in_sequence() {
    let bad = "1.0 A\nA. One.\nC. Three.\n";
    assert_eq!(codes(bad, "dotted-lettered"), ["T0006"]);
    let good = "1.0 A\nA. One.\nB. Two.\n1.1 B\nA. Again from the start.\n";
    assert!(codes(good, "dotted-lettered").is_empty());
}

#[test]
fn bracketed_numbers_restart_per_part() {
    let src = "PART ONE: STANDARD RULES\n\nBASICS\n\n[1.] Words.\n\n[2.] Words.\n\nPART TWO: EXCLUSIVE RULES\n\n[1.] Words.\n\n[3.] Words.\n";
    let f = findings(src, "bracketed-parts");
    assert_eq!(f.iter().map(|f| f.code).collect::<Vec<_>>(), ["T0001"]);
    assert_eq!(f[0].paragraph.as_deref(), Some("Exclusive[3.]"));
}

// ---------------------------------------------------------------- references

#[test]
fn reference_to_nothing_is_flagged() {
    let src = "1.0 Opening\nSee 1.1 for details.\n1.1 Moving\nUnits move (see 2.3) and fight (2.0).\n2.0 Fighting\n";
    let f = findings(src, "dotted-lettered");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, "T0101");
    assert_eq!(&src[f[0].start..f[0].end], "2.3");
    assert_eq!(f[0].paragraph.as_deref(), Some("1.1"));
}

#[test]
fn quantities_are_not_references() {
    let src = "1.0 Opening\nA hex is 13.6 km (8.5 miles) across, per version 3.5 of the series.\n";
    assert!(codes(src, "dotted-lettered").is_empty());
}

#[test]
fn item_references_are_checked() {
    let src = "1.0 Opening\n1.1 Moving\nA. One.\nB. Two.\nSee rule 1.1.B and rule 1.1.D.\n";
    let f = findings(src, "dotted-lettered");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(&src[f[0].start..f[0].end], "1.1.D");
}

#[test]
fn references_name_their_part() {
    let src = "PART ONE: STANDARD RULES\n\nBASICS\n\n[1.] See ¶3 and Exclusive Rules ¶2.\n\n[2.] Words (see ¶1, 2).\n\nPART TWO: EXCLUSIVE RULES\n\nMORE\n\n[1.] See Standard Rules ¶2; also ¶5.\n\n[2.] See ¶2 in the Standard Rules.\n";
    let f = findings(src, "bracketed-parts");
    let spots: Vec<(&str, Option<&str>)> =
        f.iter().map(|f| (&src[f.start..f.end], f.paragraph.as_deref())).collect();
    assert_eq!(spots, [("¶3", Some("Standard[1.]")), ("¶5", Some("Exclusive[1.]"))]);
}

#[test]
fn rule_references_with_items() {
    let src =
        "Rule 1: Opening\n\nA. One.\n\nB. Two.\n\nRule 2: Moving\n\nSee Rule 1 B, Rule 1D and Rule 3.\n";
    let f = findings(src, "rule-lettered");
    let spots: Vec<&str> = f.iter().map(|f| &src[f.start..f.end]).collect();
    assert_eq!(spots, ["Rule 1D", "Rule 3"]);
}

#[test]
fn topic_that_differs_is_flagged() {
    let src = "1.0 Opening\n(see Moving Units, 1.1)\n1.1 Combat Resolution\nWords about fighting.\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0102"]);
    let src = "1.0 Opening\nException: Cavalry Charges (1.1).\n1.1 Leaders\nWords about officers.\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0102"]);
    let src = "Rule 1: Opening\n\nWords (Rule 2 – Artillery Fire).\n\nRule 2: Moving\n\nWords.\n";
    assert_eq!(codes(src, "rule-lettered"), ["T0102"]);
    let src = "PART ONE: STANDARD RULES\n\nRETREAT\n\n[1.] See “Retreat Priorities” ¶2.\n\nSUPPLY\n\n[2.] Words about wagons.\n";
    assert_eq!(codes(src, "bracketed-parts"), ["T0102"]);
}

#[test]
fn heading_whose_title_starts_with_a_digit_is_indexed() {
    // Regression: `2.0 2nd Beta` was not a heading, so 2.1 had no parent.
    let src = "1.0 Alpha\nWords.\n2.0 2nd Beta\n2.1 Gamma\n3.0 10 Minute Turns\n4.0 Delta\n";
    assert_eq!(headings(src, "dotted-lettered"), ["1.0", "2.0", "2.1", "3.0", "4.0"]);
    let idx = index(src, &style("dotted-lettered"));
    assert_eq!(idx.paragraphs[1].title, "2nd Beta");
    assert!(codes(src, "dotted-lettered").is_empty(), "{:?}", findings(src, "dotted-lettered"));
    // Near misses: a number that opens a sentence, a glued word that is no ordinal.
    let src = "1.0 Alpha\n1.5 3 times the cost\n1.6 2x Bonus\n2.0 Beta\n";
    assert_eq!(headings(src, "dotted-lettered"), ["1.0", "2.0"]);
}

#[test]
fn markdown_headings_are_a_style() {
    // Regression: a text with `#` headings was indexed with 0 headings and passed.
    let src = "# Bridgehead\n\nWords.\n\n## Moving\n\nUnits move.\n\n```\n# a comment in code\n```\n\n## Fighting\n\n### Fire\n";
    assert_eq!(detect(src).name, "markdown-headings");
    let idx = index(src, &style("markdown-headings"));
    let titles: Vec<&str> = idx.headings_only().map(|p| p.title.as_str()).collect();
    assert_eq!(titles, ["Bridgehead", "Moving", "Fighting", "Fire"]);
    assert_eq!(idx.headings_only().last().and_then(|p| p.parent.as_deref()), Some("Fighting"));
    assert!(codes(src, "markdown-headings").is_empty(), "{:?}", findings(src, "markdown-headings"));
    // A skipped level and a title used twice.
    let bad = format!("{src}\n## Sieges\n\n#### Too Deep\n\n## Moving\n");
    assert_eq!(codes(&bad, "markdown-headings"), ["T0008", "T0009"]);
    // Coverage by heading: entries name headings by title.
    let enc =
        |n: &str| EncodedParagraph { number: n.into(), title: n.into(), status: EncodedStatus::Encoded };
    let r = coverage(src, Some("markdown-headings"), &[enc("Moving"), enc("\"Fire\""), enc("Sieges")])
        .expect("style");
    assert_eq!(r.encoded.len(), 2);
    assert_eq!(r.absent, ["Sieges"]);
}

#[test]
fn plain_titled_sections_are_a_style() {
    // Short lines in capitals or title case between a blank line and their text, with
    // no number and no mark: ALL CAPS over title case.
    let src = "BRIDGEHEAD\n\nTwo sides fight for a river crossing.\n\nMoving Units\nUnits move one hex at a time.\n\nFire and Melee\nAdjacent units may fire.\n\nSIEGES\n\nA fort holds three turns.\n\nThe Last Assault\nWords.\n";
    assert_eq!(detect(src).name, "titled-sections");
    let idx = index(src, &style("titled-sections"));
    let titles: Vec<&str> = idx.headings_only().map(|p| p.title.as_str()).collect();
    assert_eq!(titles, ["BRIDGEHEAD", "Moving Units", "Fire and Melee", "SIEGES", "The Last Assault"]);
    assert_eq!(idx.headings_only().nth(2).and_then(|p| p.parent.as_deref()), Some("BRIDGEHEAD"));
    assert!(codes(src, "titled-sections").is_empty(), "{:?}", findings(src, "titled-sections"));
    // A title used twice makes an anchor by heading ambiguous.
    let twice = format!("{src}\nMoving Units\nAgain.\n");
    assert_eq!(codes(&twice, "titled-sections"), ["T0009"]);
    // Coverage by heading title.
    let enc =
        |n: &str| EncodedParagraph { number: n.into(), title: n.into(), status: EncodedStatus::Encoded };
    let r = coverage(src, Some("titled-sections"), &[enc("Moving Units"), enc("Sieges"), enc("Supply")])
        .expect("style");
    assert_eq!(r.encoded.len(), 2, "{r:?}");
    assert_eq!(r.absent, ["Supply"]);
    // Near misses: sentences, lines without text after them, a short line inside a
    // paragraph, a line ending in a colon.
    let prose = "The game is for two players.\n\nsome lower case line\nwords.\n\nThese Units:\nwords.\n\nEnd Of File\n";
    assert!(index(prose, &style("titled-sections")).headings_only().next().is_none());
    // A numbered text keeps its numbered style.
    let numbered = "1.0 Opening\n\nMoving Units\nWords.\n\n2.0 Play\nWords.\n";
    assert_eq!(detect(numbered).name, "dotted-lettered");
}

#[test]
fn a_text_without_headings_says_so() {
    let src = "Just prose here.\nNo headings at all.\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0010"]);
    assert!(codes("", "dotted-lettered").is_empty());
}

#[test]
fn topic_defined_in_a_child_paragraph_matches() {
    // Regression: the topic is the title of 1.1's child 1.1.1, and of 1.1's item A.
    let src = "1.0 Opening\n(see Forced March, 1.1)\n1.1 Movement\nWords.\n1.1.1 Forced March\nMore words.\n2.0 Close\n";
    assert!(codes(src, "dotted-lettered").is_empty(), "{:?}", findings(src, "dotted-lettered"));
    let src = "1.0 Opening\n(see Road Bonus, 1.1)\n1.1 Movement\nWords.\nA. Road bonus applies on roads.\n2.0 Close\n";
    assert!(codes(src, "dotted-lettered").is_empty(), "{:?}", findings(src, "dotted-lettered"));
    // Near miss: a sibling's topic is still a mismatch.
    let src = "1.0 Opening\n(see Forced March, 1.1)\n1.1 Movement\nWords.\n1.2 Forced March\nMore.\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0102"]);
}

#[test]
fn topic_near_misses_pass() {
    // Same words, plural, title a prefix, words found in the target's text.
    let src = "1.0 Opening\n(see Moving Unit, 1.1) Exceptions: Terrain Effects (1.2) and Fire Zones (1.3).\n1.1 Moving Units\n1.2 Terrain Effects on Combat\n1.3 Zones\nA fire zone is a hex.\n";
    assert!(codes(src, "dotted-lettered").is_empty(), "{:?}", findings(src, "dotted-lettered"));
    // Capitalised game terms in prose are not a stated topic.
    let src = "1.0 Opening\nUnits in their Movement Phase (1.1) may move.\n1.1 Command\nWords.\n";
    assert!(codes(src, "dotted-lettered").is_empty());
    // A quotation inside a sentence is not the reference's topic.
    let src = "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 First. As noted per 1.12, “old style” markers remain.\n1.12 Second. Words.\n";
    assert!(codes(src, "case-implied").is_empty());
}

#[test]
fn placeholders_and_bare_references_to_other_books() {
    let base = "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 First. See KR&Os 9.221 for the rest.\n2.0 SCENARIOS\n2.1 GENERAL\n2.2-2.6 ORDERS OF BATTLE\n";
    // A placeholder where a number belongs.
    let src = format!("{base}1.12 Second. Refer to the OOBs (2.X) for details.\n");
    let f = findings(&src, "case-implied");
    assert_eq!(f.iter().map(|f| f.code).collect::<Vec<_>>(), ["T0103"], "{f:?}");
    assert_eq!(&src[f[0].start..f[0].end], "2.X");
    // A bare number below the range heading: printed in another book, unnamed.
    let src = format!("{base}1.12 Second. Consult the Recruitment Table (2.37).\n");
    let f = findings(&src, "case-implied");
    assert_eq!(f.iter().map(|f| f.code).collect::<Vec<_>>(), ["T0104"], "{f:?}");
    // Near misses: the book named; the range's own numbers; a quantity with x; a text
    // that never names other books (no external markers: nothing to contradict).
    let src = format!("{base}1.12 Second. Consult the table in the OOB booklet (2.37). See 2.4 and sections 2.2-2.6. Roll 2x per turn.\n");
    assert!(codes(&src, "case-implied").is_empty(), "{:?}", findings(&src, "case-implied"));
    let mut plain = style("case-implied");
    plain.external_markers.clear();
    let src = format!("{base}1.12 Second. Consult the Recruitment Table (2.37).\n")
        .replace("See KR&Os 9.221 for the rest", "Words");
    assert!(check(&src, &index(&src, &plain)).is_empty());
}

#[test]
fn sequence_of_play_codes_are_a_second_scheme() {
    let outline = "PART ONE: STANDARD RULES\n\nSEQUENCE\n\nI. FIRST PHASE\n\na. Supply Segment\n\n[1.]\n\n\
                   Count the supply points.\nTrace the supply lines.\nRemove unsupplied units.\n\n\
                   b. Repair Segment\n\n[2.] Words.\n\nII. SECOND PHASE\n\na. Moving\n\n[3.] Words.\n\n";
    let body = |sections: &str| format!("{outline}{sections}");
    // Near misses: codes that fit their steps, references to existing segments, `If`.
    let fine = body("I.a.2. SUPPLY LINES\n\n[4.] If a line is cut, see II.a. and (I.b) and IIa. above.\n");
    assert!(codes(&fine, "bracketed-parts").is_empty(), "{:?}", findings(&fine, "bracketed-parts"));
    // A section about step 3 numbered as step 1.
    let src = body("I.a.1. UNSUPPLIED UNITS\n\n[4.] Words.\n");
    let f = findings(&src, "bracketed-parts");
    assert_eq!(f.iter().map(|f| f.code).collect::<Vec<_>>(), ["T0403"], "{f:?}");
    assert!(f[0].notes.iter().any(|n| n.contains("did you mean I.a.3?")), "{:?}", f[0].notes);
    // Near miss: a title that shares nothing with any step is not flagged.
    let src = body("I.a.1. WEATHER\n\n[4.] Words.\n");
    assert!(codes(&src, "bracketed-parts").is_empty());
    // A segment that does not exist, in a heading and in a reference.
    let src = body("I.c. NOTHING HERE\n\n[4.] As in (III.a) above.\n");
    assert_eq!(codes(&src, "bracketed-parts"), ["T0401", "T0401"]);
    // A step beyond the listed ones; a segment without a step list is not checked.
    let src = body("I.a.5. TOO FAR\n\n[4.] Words.\n\nII.a.3. MOVING ON\n\n[5.] Words.\n");
    assert_eq!(codes(&src, "bracketed-parts"), ["T0402"]);
    // No outline in the text: codes mean nothing and are not checked.
    let src = "PART ONE: STANDARD RULES\n\nBASICS\n\n[1.] See I.c. for more.\n";
    assert!(codes(src, "bracketed-parts").is_empty());
}

#[test]
fn external_references_are_skipped() {
    let src = "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 First. See KR&Os 9.221 and section 9.0 of the KR&Os, and HGH Exclusive Rule 1.52.\n";
    assert!(codes(src, "case-implied").is_empty());
}

// ---------------------------------------------------------------- dice tables

#[test]
fn dice_gap_is_flagged() {
    let src = "1.0 Opening\nRoll one die.\n- On a 1-2, nothing happens.\n- On a 4-6, the unit halts.\n";
    let f = findings(src, "dotted-lettered");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, "T0201");
    assert!(f[0].message.contains("a roll of 3"), "{}", f[0].message);
}

#[test]
fn dice_overlap_is_flagged() {
    let src = "1.0 Opening\nRoll one die.\nA. On a 1-3, nothing happens.\nB. On a 3-6, the unit halts.\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0202"]);
}

#[test]
fn dice_beyond_is_flagged() {
    let src = "1.0 Opening\nRoll one die.\n- 1-4: nothing happens.\n- 5-7: the unit halts.\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0203"]);
}

#[test]
fn dice_near_misses_pass() {
    // Two dice, complete.
    let two = "1.0 Opening\nRoll two dice.\n- 2-6: nothing happens.\n- 7-12: the unit halts.\n";
    assert!(codes(two, "dotted-lettered").is_empty());
    // A modified roll may go past the faces.
    let modified = "1.0 Opening\nRoll one die and add the modifier.\n- 1-3: nothing.\n- 4-7: halt.\n";
    assert!(codes(modified, "dotted-lettered").is_empty());
    // Single values and an open end.
    let single =
        "1.0 Opening\nThe owner rolls one die.\n- On a 1-3, good.\n- On a 4-5, bad.\n- On a 6, no change.\n";
    assert!(codes(single, "dotted-lettered").is_empty());
    let open = "1.0 Opening\nRoll a die.\n- 1-4: stay.\n- 5+: go.\n";
    assert!(codes(open, "dotted-lettered").is_empty());
    // Ranges with no roll in sight are not a dice table.
    let players = "1.0 Opening\nGame sizes:\n- 2-4: a short game.\n- 6-8: a long game.\n";
    assert!(codes(players, "dotted-lettered").is_empty());
    // Hex numbers are not rolls.
    let hexes = "1.0 Opening\nRoll a die to enter; Area A (0441-1441), Area B (1501-1510).\n";
    assert!(codes(hexes, "dotted-lettered").is_empty());
}

#[test]
fn markdown_dice_tables() {
    let gap = "1.0 Opening\n| Roll | Result |\n|---|---|\n| 1-2 | Lost |\n| 3-5 | Safe |\n";
    assert_eq!(codes(gap, "dotted-lettered"), ["T0201"]);
    let full = "1.0 Opening\n| Die roll | Result |\n|---|---|\n| 1 | One |\n| 2-5 | Some |\n| 6 | All |\n";
    assert!(codes(full, "dotted-lettered").is_empty());
    let points = "1.0 Opening\n| Points | Condition |\n|---|---|\n| 5 | A big win |\n| 1 | A small win |\n";
    assert!(codes(points, "dotted-lettered").is_empty());
}

#[test]
fn inline_dice_rows_and_ten_sided_dice() {
    let full =
        "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 First. Roll a die: 0-2 Recovers, 3-7 Nothing, 8-9 Dies.\n";
    assert!(codes(full, "case-implied").is_empty());
    let gap =
        "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 First. Roll a die: 0-2 Recovers, 3-7 Nothing, 8-8 Dies.\n";
    assert_eq!(codes(gap, "case-implied"), ["T0201"]);
}

// ---------------------------------------------------------------- contents

#[test]
fn contents_entry_without_heading() {
    let src = "Table of Contents\n- 1.0 Opening\n- 2.0 Play\n- 3.0 Ending\n1.0 Opening\n2.0 Play\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0301"]);
}

#[test]
fn contents_title_differs() {
    let src = "Table of Contents\n- 1.0 Opening\n- 2.0 Play\n1.0 Opening\n2.0 Combat\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0303"]);
    // Same words in another case, or the heading adds a scope tag: fine.
    let src = "1.0 Opening.... 1 2.0 The Play.... 2\n1.0 OPENING\n2.0 THE PLAY CAMPAIGN RULE ONLY\n";
    assert!(codes(src, "case-implied").is_empty(), "{:?}", findings(src, "case-implied"));
}

#[test]
fn heading_missing_from_a_full_contents() {
    let src = "Table of Contents\n- 1.0 A\n- 2.0 B\n- 3.0 C\n- 4.0 D\n1.0 A\n2.0 B\n3.0 C\n4.0 D\n5.0 E\n";
    assert_eq!(codes(src, "dotted-lettered"), ["T0302"]);
    // A contents that lists a selection of a level is not incomplete.
    let src = "Table of Contents\n- 1.0 A\n- 1.2 C\n1.0 A\n1.1 B\n1.2 C\n1.3 D\n1.4 E\n";
    assert!(codes(src, "dotted-lettered").is_empty());
}

#[test]
fn contents_headings_empty_repeated_or_partial() {
    let body = "1.0 A\n2.0 B\n3.0 C\n4.0 D\n5.0 E\n6.0 F\n";
    // No entries at all.
    let src = format!("Rules\nTable of Contents\n\n{body}");
    assert_eq!(codes(&src, "dotted-lettered"), ["T0304"]);
    // Repeated with nothing between: one finding, at the repeat (not also "empty").
    let full = "- 1.0 A\n- 2.0 B\n- 3.0 C\n- 4.0 D\n- 5.0 E\n- 6.0 F\n";
    let src = format!("Table of Contents\nTable of Contents\n{full}{body}");
    let f = findings(&src, "dotted-lettered");
    assert_eq!(f.iter().map(|f| f.code).collect::<Vec<_>>(), ["T0305"], "{f:?}");
    assert_eq!(f[0].line, 2);
    // Stops at 2.0 of six top-level headings.
    let src = format!("Table of Contents\n- 1.0 A\n- 2.0 B\n{body}");
    let f = findings(&src, "dotted-lettered");
    assert_eq!(f.iter().map(|f| f.code).collect::<Vec<_>>(), ["T0306"], "{f:?}");
    assert!(f[0].message.contains("stops at 2.0"), "{}", f[0].message);
    // Only the parts.
    let src = "Table of Contents\n\nPART ONE: STANDARD RULES\nPART TWO: EXCLUSIVE RULES\n\nPART ONE: STANDARD RULES\n\nBASICS\n\n[1.] Words.\n\n[2.] Words.\n";
    assert_eq!(codes(src, "bracketed-parts"), ["T0306"]);
    // Near misses: a full contents; a selection that is not a prefix; a contents with
    // its heading once; a text with no contents at all.
    let src = format!("Table of Contents\n{full}{body}");
    assert!(codes(&src, "dotted-lettered").is_empty());
    let src = format!("Table of Contents\n- 1.0 A\n- 4.0 D\n{body}");
    assert!(codes(&src, "dotted-lettered").is_empty());
    assert!(codes(body, "dotted-lettered").is_empty());
    let src = "Table of Contents\n\nPART ONE: STANDARD RULES\n\nPART ONE: STANDARD RULES\n\nBASICS\n\n[1.] Words.\n";
    assert_eq!(codes(src, "bracketed-parts"), ["T0306"], "one part listed is still parts only");
}

// ---------------------------------------------------------------- the five texts

/// The workspace's shared helper (tests/support/texts.rs): `$KRIEGSSPIEL_TEXTS` or
/// `../shared/rulebook-texts`; a missing text skips the test, or fails it under `CI=true`.
#[path = "../../tests/support/texts.rs"]
mod texts;

/// A rulebook text by name (`torgau`), or `None` when the test is skipped.
fn read_text(name: &str) -> Option<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    texts::read_text(&root, &format!("{name}.txt"))
}

/// (code, line, paragraph) of every finding.
fn summary(src: &str, style_name: &str) -> Vec<(String, usize, String)> {
    let (_, f) = validate(src, &style(style_name));
    f.iter().map(|f| (f.code.to_string(), f.line, f.paragraph.clone().unwrap_or_default())).collect()
}

fn s(code: &str, line: usize, para: &str) -> (String, usize, String) {
    (code.to_string(), line, para.to_string())
}

#[test]
fn rulebook_frederick() {
    let Some(src) = read_text("frederick-the-great") else {
        return;
    };
    assert_eq!(detect(&src).name, "decimal-implied");
    let idx = index(&src, &style("decimal-implied"));
    assert_eq!(idx.headings_only().count(), 93);
    assert_eq!(idx.toc.len(), 30);
    // "reinforcements (4.2)": the text has 4.12 Reinforcements, no 4.2.
    // The contents heading is written twice (lines 3 and 4).
    // The 9.41 example prints "6 + 2 = 3" where it halves 6.
    assert_eq!(
        summary(&src, "decimal-implied"),
        [s("T0305", 4, ""), s("T0101", 105, "4.0"), s("T0502", 262, "9.41")]
    );
}

#[test]
fn rulebook_peter() {
    let Some(src) = read_text("peter-the-great") else {
        return;
    };
    assert_eq!(detect(&src).name, "dotted-lettered");
    let idx = index(&src, &style("dotted-lettered"));
    assert_eq!(idx.headings_only().count(), 192);
    assert_eq!(idx.paragraphs.len() - 192, 251);
    assert_eq!(
        summary(&src, "dotted-lettered"),
        [
            s("T0305", 4, ""),          // "Table of Contents" twice (lines 3 and 4)
            s("T0101", 34, "2.1.1.C"),  // (5.0.4): no such paragraph
            s("T0101", 163, "5.2.1"),   // (5.2.3, 5.2.4): 5.2 stops at 5.2.3
            s("T0004", 566, "13.18.3"), // 13.18.3 without 13.18
        ]
    );
    // The dice tables are read: break one and the check says so.
    let broken = src.replacen("- On a 6, there is no change", "- On a 7, there is no change", 1);
    let codes: Vec<String> = summary(&broken, "dotted-lettered").into_iter().map(|t| t.0).collect();
    assert!(codes.contains(&"T0201".to_string()) && codes.contains(&"T0203".to_string()));
}

#[test]
fn rulebook_torgau() {
    let Some(src) = read_text("torgau") else {
        return;
    };
    assert_eq!(detect(&src).name, "rule-lettered");
    let idx = index(&src, &style("rule-lettered"));
    assert_eq!(idx.headings_only().count(), 24);
    assert_eq!(idx.paragraphs.len() - 24, 74);
    // "Table of Contents" with no entry after it.
    assert_eq!(summary(&src, "rule-lettered"), [s("T0304", 5, "")]);
}

#[test]
fn rulebook_napoleon() {
    let Some(src) = read_text("napoleon-at-the-crossroads") else {
        return;
    };
    assert_eq!(detect(&src).name, "bracketed-parts");
    let idx = index(&src, &style("bracketed-parts"));
    let standard = idx.headings_only().filter(|p| p.part.as_deref() == Some("Standard")).count();
    let exclusive = idx.headings_only().filter(|p| p.part.as_deref() == Some("Exclusive")).count();
    assert_eq!((standard, exclusive), (210, 195));
    // Exclusive [13.] is missing.
    // The contents names the two parts and no paragraph or section.
    // "I.a.1. SUPPLY SOURCES" is about step 2 of the Administrative Segment (designate a
    // Supply Source); step 1 is receiving Administrative Points.
    // Five references cite a paragraph about something else (T0105): "in contact"
    // (E57) is E160's battle result, not S155's battle-type restrictions; the
    // Freikorps' threat to communications (E88) is not E91's division of command;
    // a Depleted Depot (E108) is E105's, not E66's garrison removal; a Movement
    // Command (E132) is S45, while a bare number in the Exclusive Rules is E45 (Heat,
    // Fair); the Paris Morale Marker's start (E146) is not in E91.
    assert_eq!(
        summary(&src, "bracketed-parts"),
        [
            s("T0306", 5, ""),
            s("T0403", 271, "Standard[57.]"),
            s("T0001", 918, "Exclusive[14.]"),
            s("T0105", 1092, "Exclusive[57.]"),
            s("T0105", 1209, "Exclusive[88.]"),
            s("T0105", 1286, "Exclusive[108.]"),
            s("T0105", 1383, "Exclusive[132.]"),
            s("T0105", 1432, "Exclusive[146.]"),
        ]
    );
}

#[test]
fn rulebook_sport_of_kings() {
    let Some(src) = read_text("sport-of-kings") else {
        return;
    };
    assert_eq!(detect(&src).name, "case-implied");
    let idx = index(&src, &style("case-implied"));
    // 652 distinct numbers (3.126 is letter-spaced `3 . 1 2 6`) and 6 repeats.
    assert_eq!(idx.headings_only().count(), 658);
    assert_eq!(idx.toc.len(), 45);
    let got = summary(&src, "case-implied");
    let want = [
        s("T0002", 202, "3.178"),
        s("T0101", 259, "3.244"),
        // 3.42 on line 274 (Strategic Redeployment, among 3.42x and 3.43x), not 257.
        s("T0002", 274, "3.42"),
        s("T0002", 276, "3.421"),
        // 4.443 on line 309 is 4.143 (one digit slip): the repeat names it, no gap.
        s("T0002", 309, "4.443"),
        s("T0002", 337, "4.226"),
        s("T0002", 496, "4.513"),
        s("T0001", 512, "4.624"),
        s("T0004", 516, "6.625"),
        s("T0101", 543, "4.642"),
        // "Hessian Recruitment Table (7.37)": a table of the OOB booklets (7.2-7.6), unnamed.
        s("T0104", 738, "5.641"),
        s("T0004", 741, "5.664"),
        // "refer to the OOBs (7.X)": a placeholder.
        s("T0103", 836, "6.251"),
        // No T0102 on line 861: "Strategic Events (6.0)" names 6.0's child 6.2, which is 6.0's topic too.
        s("T0001", 884, "7.8"),
        s("T0004", 1042, "8.931"),
        // "use sections 7.X": a placeholder.
        s("T0103", 1062, "8.931"),
    ];
    assert_eq!(got, want);
}

// ---------------------------------------------------------------- CLI and coverage

fn temp_file(name: &str, body: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("kriegsspiel-text-{}-{name}", std::process::id()));
    std::fs::write(&p, body).expect("write temp file");
    p
}

fn run(opts: &TextOptions) -> (i32, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = run_cli(opts, &mut out, &mut err);
    (code, String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned())
}

#[test]
fn cli_exit_codes_and_outputs() {
    let bad = temp_file("bad.txt", "1.0 Opening\n1.1 Parts\n1.1 Again\n");
    let (code, out, err) = run(&TextOptions { path: bad.clone(), index: false, json: false, style: None });
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("T0002") && err.contains("§1.1"), "{err}");

    let (code, out, _) = run(&TextOptions {
        path: bad.clone(),
        index: true,
        json: true,
        style: Some("dotted-lettered".into()),
    });
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(doc["findings"][0]["code"], "T0002");
    assert_eq!(doc["findings"][0]["severity"], "error");
    // The shape `check` gives its diagnostics.
    for key in ["message", "file", "line", "column", "span", "paragraphs", "labels", "notes"] {
        assert!(doc["findings"][0].get(key).is_some(), "no {key} in {}", doc["findings"][0]);
    }
    assert_eq!(doc["findings"][0]["paragraphs"][0], "1.1");
    assert_eq!(doc["paragraphs"][1]["number"], "1.1");

    let good = temp_file("good.txt", "1.0 Opening\n1.1 Parts\n1.3 Skip\n");
    let (code, out, err) = run(&TextOptions { path: good.clone(), index: true, json: false, style: None });
    assert_eq!(code, 0, "warnings only");
    assert!(out.contains("1.3") && err.contains("T0001"));

    let (code, _, err) =
        run(&TextOptions { path: good.clone(), index: false, json: false, style: Some("nope".into()) });
    assert_eq!(code, 2);
    assert!(err.contains("unknown numbering style"));

    let (code, _, _) = run(&TextOptions {
        path: PathBuf::from("/no/such/file.txt"),
        index: false,
        json: false,
        style: None,
    });
    assert_eq!(code, 2);
    let _ = std::fs::remove_file(bad);
    let _ = std::fs::remove_file(good);
}

#[test]
fn coverage_report() {
    let src = "1.0 Opening\n1.1 Moving\nA. One.\n1.2 Fighting\n2.0 Notes\n";
    let enc = |n: &str, t: &str, s: EncodedStatus| EncodedParagraph {
        number: n.into(),
        title: t.into(),
        status: s,
    };
    let encoded = [
        enc("1.1.A", "", EncodedStatus::Encoded),
        enc("1.2", "Combat", EncodedStatus::Encoded),
        enc("2.0", "Notes", EncodedStatus::Waived("commentary".into())),
        enc("3.0", "Ending", EncodedStatus::Listed),
        enc("1.0", "Opening", EncodedStatus::Listed),
    ];
    let r = coverage(src, Some("dotted-lettered"), &encoded).expect("coverage");
    assert_eq!(r.total, 4);
    assert_eq!(r.encoded.iter().map(|e| e.number.as_str()).collect::<Vec<_>>(), ["1.1", "1.2"]);
    assert_eq!(r.waived.len(), 1);
    assert_eq!(r.neither.iter().map(|e| e.number.as_str()).collect::<Vec<_>>(), ["1.0"]);
    assert_eq!(r.absent, ["3.0"]);
    assert_eq!(r.title_mismatches.len(), 1);
    assert_eq!((r.encoded_permille, r.covered_permille), (500, 750));
    assert!(r.has_errors());
    assert!(r.render_human().contains("2 of 4 paragraphs encoded (50.0%)"));
    assert_eq!(r.to_json()["absent"][0], "3.0");

    let nap =
        "PART ONE: STANDARD RULES\n\nA\n\n[1.] x\n\nPART TWO: EXCLUSIVE RULES\n\nB\n\n[1.] y\n\n[2.] z\n";
    let r = coverage(
        nap,
        None,
        &[enc("Exclusive[2.]", "B", EncodedStatus::Encoded), enc("[1.]", "A", EncodedStatus::Encoded)],
    )
    .unwrap();
    assert_eq!(
        r.encoded.iter().map(|e| e.number.as_str()).collect::<Vec<_>>(),
        ["Standard[1.]", "Exclusive[2.]"]
    );
    let rules = "Rule 1: Opening\n\nA. x\n\nRule 2: Moving\n";
    let r = coverage(
        rules,
        None,
        &[enc("Rule 1.A", "", EncodedStatus::Encoded), enc("Rule 2", "Moving", EncodedStatus::Encoded)],
    )
    .unwrap();
    assert_eq!(r.encoded.len(), 2);
    assert!(!r.has_errors());
    assert!(coverage(rules, Some("nope"), &[]).is_err());
}

// ---------------------------------------------------------------- robustness

mod props {
    use super::*;
    use proptest::prelude::*;

    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("1.0 Opening\n".to_string()),
            Just("7.1.2 Procedure\n".to_string()),
            Just("Rule 3: Title\n".to_string()),
            Just("[4.] ".to_string()),
            Just("PART TWO: EXCLUSIVE RULES\n".to_string()),
            Just("Table of Contents\n- 2.0 Play\n".to_string()),
            Just("A. ".to_string()),
            Just("On a 1-3, ".to_string()),
            Just("| Roll | Result |\n|---|---|\n| 1-2 | x |\n".to_string()),
            Just("(see ¶12, “Topic,”) ".to_string()),
            Just("see 13.0.B. ".to_string()),
            Just("....... 4 ".to_string()),
            Just(">>>5.11.10 Case. ".to_string()),
            Just("roll two dice: 2-6 Win, 7-12 Lose. ".to_string()),
            "[ -~¶§“”•…é\n]{0,12}".prop_map(|s| s),
            any::<String>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]
        /// Whatever the line endings (`\n`, `\r\n`, `\r`), the same findings on the same lines.
        #[test]
        fn line_endings_do_not_change_findings(parts in prop::collection::vec(fragment(), 0..30)) {
            let lf: String = parts.concat().replace('\r', "");
            for st in Style::builtin() {
                let want: Vec<_> = validate(&lf, &st).1.into_iter().map(|f| (f.code, f.line, f.paragraph)).collect();
                for eol in ["\r\n", "\r"] {
                    let other = lf.replace('\n', eol);
                    let got: Vec<_> =
                        validate(&other, &st).1.into_iter().map(|f| (f.code, f.line, f.paragraph)).collect();
                    prop_assert_eq!(&got, &want, "{} with {:?}", st.name, eol);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn never_panics_and_spans_fit(parts in prop::collection::vec(fragment(), 0..30)) {
            let src: String = parts.concat();
            let mut styles = Style::builtin();
            styles.push(detect(&src));
            for st in &styles {
                let (idx, findings) = validate(&src, st);
                for f in &findings {
                    prop_assert!(f.start <= f.end && f.end <= src.len());
                    prop_assert!(src.is_char_boundary(f.start) && src.is_char_boundary(f.end));
                }
                for p in &idx.paragraphs {
                    prop_assert!(p.start <= p.end && p.end <= src.len());
                }
                let _ = idx.render_human();
                let _ = kriegsspiel_text::render::to_json("x", &src, &idx, &findings, true);
            }
        }
    }
}

// ---------------------------------------------------------------- hostile input (issue 10)

/// (code, line, paragraph) of every finding under `style_name`.
fn lines_of(src: &str, style_name: &str) -> Vec<(&'static str, usize, Option<String>)> {
    findings(src, style_name).into_iter().map(|f| (f.code, f.line, f.paragraph)).collect()
}

/// Old Mac files end lines with a lone `\r`: the same findings on the same lines as
/// with `\n` or `\r\n` (issue 10, failure 3: a CR file was one huge line).
#[test]
fn every_line_ending_style_gives_the_same_findings() {
    let lf = "Table of Contents\n- 1.0 A\n- 2.0 B\n1.0 A\nSee 7.2 for more.\n2.0 B\n4.0 D\n";
    let want = lines_of(lf, "dotted-lettered");
    assert!(want.iter().any(|f| f.0 == "T0101" && f.1 == 5), "{want:?}");
    for (name, eol) in [("CRLF", "\r\n"), ("CR", "\r")] {
        let other = lf.replace('\n', eol);
        assert_eq!(lines_of(&other, "dotted-lettered"), want, "{name}");
        assert_eq!(detect(&other).name, detect(lf).name, "{name}");
    }
    // Mixed endings in one file.
    let mixed = "1.0 A\r\nSee 7.2.\r2.0 B\n4.0 D\r";
    let got: Vec<usize> = findings(mixed, "dotted-lettered").iter().map(|f| f.line).collect();
    let want: Vec<usize> = findings(&mixed.replace("\r\n", "\n").replace('\r', "\n"), "dotted-lettered")
        .iter()
        .map(|f| f.line)
        .collect();
    assert_eq!(got, want);
}

/// No finding prints more than a bounded excerpt of its line, and at most
/// `MAX_SHOWN_PER_CODE` findings of one code are printed (issue 10, failure 3: one
/// finding per reference reprinted the whole file).
#[test]
fn human_output_is_bounded_per_finding() {
    use kriegsspiel_text::render::{render_human, MAX_SHOWN_PER_CODE};
    // One 600 kB line: a heading, then 20,000 references to a paragraph that does not exist.
    let src = format!("1.0 Rules {}\n", "see 9.9 here. ".repeat(20_000));
    let f = findings(&src, "dotted-lettered");
    let dangling = f.iter().filter(|f| f.code == "T0101").count();
    assert_eq!(dangling, 20_000);
    let mut out = Vec::new();
    render_human("x.txt", &src, &f, &mut out).expect("writes");
    let text = String::from_utf8_lossy(&out);
    assert!(out.len() < (MAX_SHOWN_PER_CODE + 10) * 1_000, "{} bytes", out.len());
    assert!(
        text.contains(&format!("{} more T0101 finding(s) not shown", 20_000 - MAX_SHOWN_PER_CODE)),
        "{text}"
    );
    assert!(text.contains("shown in part"), "{text}");
    // Short lines still get codespan's rendering, with line numbers after `\r` endings.
    let src = "1.0 Rules\rSee 9.9.\r";
    let mut out = Vec::new();
    render_human("cr.txt", src, &findings(src, "dotted-lettered"), &mut out).expect("writes");
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("cr.txt:2:5"), "{text}");
}

/// Many findings in a big text: each is located with the line index, and the counts are
/// exact (issue 10, failure 2; its time is measured by the bench, docs/performance.md).
#[test]
fn many_findings_in_a_big_text_keep_their_lines() {
    let block = "1.0 A\nSee 9.9.\n1.1 B\n";
    let src = block.repeat(20_000);
    let f = findings(&src, "dotted-lettered");
    let t0101: Vec<usize> = f.iter().filter(|f| f.code == "T0101").map(|f| f.line).collect();
    assert_eq!(t0101.len(), 20_000);
    assert!(t0101.iter().enumerate().all(|(i, &l)| l == 3 * i + 2));
}

#[test]
fn letter_spaced_numbers_from_page_extraction() {
    let src =
        "1.0 BASICS\n1.1 GENERAL POINTS\n1.11 First. Words.\n1 . 1 2 Second. Words.\n1.13 Third. Words.\n";
    assert_eq!(headings(src, "case-implied"), ["1.0", "1.1", "1.11", "1.12", "1.13"]);
    assert!(codes(src, "case-implied").is_empty());
}

#[test]
fn a_sixth_style_is_a_declaration() {
    // "Article N. Title" numbering: a new value of Style, no new scanning code.
    let mut article = style("rule-lettered");
    article.name = "article".into();
    article.marker = kriegsspiel_text::style::Marker::Keyword("Article".into());
    let src = "Article 1: Scope\n\nWords (see Article 2).\n\nArticle 2: Terms\n\nArticle 4: Duties\n\nSee Article 9.\n";
    let idx = index(src, &article);
    assert_eq!(idx.headings_only().count(), 3);
    let f = check(src, &idx);
    assert_eq!(f.iter().map(|f| f.code).collect::<Vec<_>>(), ["T0001", "T0101"]);
}

// ---------------------------------------------------------------- arithmetic

fn arith_codes(src: &str) -> Vec<&'static str> {
    codes(src, "dotted-lettered").into_iter().filter(|c| c.starts_with("T05")).collect()
}

#[test]
fn a_count_beside_a_list_on_its_line_is_checked() {
    // Flagged: three named, two listed.
    let src = "1.0 Moving\nA unit may move in three ways: by road, or across country.\n";
    let f = findings(src, "dotted-lettered");
    let t = f.iter().find(|f| f.code == "T0501").expect("T0501");
    assert!(t.message.contains("counts 3") && t.message.contains("has 2"), "{}", t.message);
    // Flagged: labelled items up to 2 where four are counted.
    assert_eq!(arith_codes("1.0 Moving\nFour things matter: 1) terrain; 2) weather.\n"), ["T0501"]);
    // Near misses: serial comma and "and" inside the last item; a missing serial
    // comma; a first label lost; semicolons; two joined by "and".
    for ok in [
        "1.0 Moving\nThere are three kinds: roads, trails, and fields that are wet and muddy.\n",
        "1.0 Moving\nThere are three kinds: roads, trails and fields.\n",
        "1.0 Moving\nFour important concepts are: attrition, costly; 2) command; 3) initiative; 4) losses.\n",
        "1.0 Moving\nThree types: infantry counters; leader counters; and markers.\n",
        "1.0 Moving\nThe turn has two halves: the French half and the Allied half.\n",
        "1.0 Moving\nFour of them: see 2.0.\n",
    ] {
        assert!(arith_codes(ok).is_empty(), "{ok:?}: {:?}", findings(ok, "dotted-lettered"));
    }
}

#[test]
fn a_count_beside_a_list_on_the_following_lines_is_checked() {
    let bullets = "1.0 Fire\nArtillery fires in one of three ways:\n- at an adjacent hex\n- in support\n";
    assert_eq!(arith_codes(bullets), ["T0501"]);
    let named = "1.0 Fire\nThere are two kinds of disorder:\n\nShaken: the unit halts.\n\nRouted: it flees.\n\nBroken: it leaves.\n\nA unit in a town is exempt.\n";
    assert_eq!(arith_codes(named), ["T0501"]);
    let plain =
        "1.0 Fire\nThe segment has four steps:\n\nFirst step.\nSecond step.\nThird step.\n\n2.0 Next\n";
    assert_eq!(arith_codes(plain), ["T0501"]);
    for ok in [
        "1.0 Fire\nArtillery fires in one of three ways:\n- at an adjacent hex\n- in support\n- alone\nB. Then it stops.\n",
        "1.0 Fire\nThere are two kinds of disorder:\n\nShaken: the unit halts.\n\nRouted: it flees.\n\nA unit in a town is exempt.\n",
        "1.0 Fire\nThe segment has four steps:\n\nFirst step.\nSecond step.\nThird step.\nFourth step.\n\n2.0 Next\n",
        "1.0 Fire\nThe segment has two steps:\n\u{2022}\nFirst step.\n\u{2022}\nSecond step.\n2.0 Next\n",
        // The list is under a heading of its own: not read as the list.
        "1.0 Fire\nIt has two parts:\n1.1 Part One\nWords.\n",
    ] {
        assert!(arith_codes(ok).is_empty(), "{ok:?}: {:?}", findings(ok, "dotted-lettered"));
    }
}

#[test]
fn a_sum_beside_its_parts_is_checked() {
    assert_eq!(arith_codes("1.0 Combat\nThe force totals 3 + 4 = 8 SP.\n"), ["T0502"]);
    assert_eq!(arith_codes("1.0 Combat\nThe stack has 12 (7 + 4) SP.\n"), ["T0502"]);
    assert_eq!(arith_codes("1.0 Combat\nDoubled: 2 x 3 = 5.\n"), ["T0502"]);
    for ok in [
        "1.0 Combat\nThe force totals 3 + 5 = 8 SP, and 2 x 2 = 4.\n",
        "1.0 Combat\nThe stack has 11 (7 + 4) SP.\n",
        // A range and a decimal operand are not sums it can check.
        "1.0 Combat\nOn a 1-3 (see 2.0) it halts; 3.75 mi. x 2 x 4 = 30 miles.\n",
        "1.0 Combat\nTake 20 - 7 = 13 or 6 - 2.\n",
    ] {
        assert!(arith_codes(ok).is_empty(), "{ok:?}: {:?}", findings(ok, "dotted-lettered"));
    }
}

#[test]
fn a_span_beside_its_ends_is_checked() {
    assert_eq!(arith_codes("1.0 Time\nThe game lasts turns 3-7 (three turns).\n"), ["T0503"]);
    assert_eq!(arith_codes("1.0 Time\nThe war lasts eight years (1740-1745).\n"), ["T0503"]);
    for ok in [
        "1.0 Time\nThe game lasts turns 3-7 (five turns).\n",
        "1.0 Time\nThe war lasted eight years (1740-1748).\n",
        "1.0 Time\nIt runs 1740 to 1745 (six years).\n",
        "1.0 Time\nSee 3-7 (two pages).\n",
    ] {
        assert!(arith_codes(ok).is_empty(), "{ok:?}: {:?}", findings(ok, "dotted-lettered"));
    }
}

// ---------------------------------------------------------------- references about something else

#[test]
fn a_reference_to_a_paragraph_about_something_else_is_flagged() {
    let src = "1.0 Supply\nSupply lines run along roads to a depot and must be unbroken.\n\
2.0 Weather\nRain halves movement and snow stops artillery from firing.\n\
3.0 Sieges\nA besieged fortress surrenders when its depot is cut off from supply lines (see 2.0).\n";
    let f = findings(src, "dotted-lettered");
    let t = f.iter().find(|f| f.code == "T0105").expect("T0105");
    assert!(t.message.contains("2.0") && t.message.contains("Weather"), "{}", t.message);
    assert_eq!(t.paragraph.as_deref(), Some("3.0"));
    // Did you mean: a sibling that shares the sentence's words, its title among them.
    let src = "1.1 Supply Lines\nSupply lines run along roads to a depot and must be unbroken.\n\
1.2 Weather\nRain halves movement and snow stops artillery from firing.\n\
2.0 Sieges\nA besieged fortress surrenders when its depot loses its supply lines along roads (see 1.2).\n";
    let f = findings(src, "dotted-lettered");
    let t = f.iter().find(|f| f.code == "T0105").expect("T0105");
    assert!(t.notes.iter().any(|n| n.contains("did you mean 1.1")), "{:?}", t.notes);
}

#[test]
fn references_that_share_a_subject_or_cannot_be_judged_pass() {
    for ok in [
        // Shared words after stemming: "stack freely" and "Free-Stacking".
        "1.0 Stacking\n1.1 Free-Stacking Units\nLeaders and wagons never count against limits.\n2.0 Cavalry\nThe general's escort squadron may stack freely (1.1).\n",
        // The subject is in the citing paragraph's title.
        "1.0 Redoubts\nRedoubts double defenders and block fire lanes beyond.\n2.0 Redoubt Types\nCompleted and unfinished kinds differ here (see 1.0 for details).\n",
        // The end of a range, a bare \"see 2.0\", a reference inside its own target.
        "1.0 Arrivals\nReinforcements enter on roads at the map edge.\n2.0 Weather\nRain halves movement and snow stops artillery.\n3.0 Entry\nOff-map forces enter the map by 1.0-2.0 rules.\nSee 2.0.\n",
        // A list heading whose items are elsewhere.
        "1.0 Events:\n2.0 Prisoners\nExchanges stop while the convention is suspended (1.0 point three).\n",
    ] {
        let f: Vec<_> = findings(ok, "dotted-lettered").into_iter().filter(|f| f.code == "T0105").collect();
        assert!(f.is_empty(), "{ok:?}: {f:?}");
    }
}

#[test]
fn a_bare_number_into_the_wrong_part_is_flagged_unless_the_part_is_named() {
    let standard = "PART ONE: STANDARD RULES\n[1.] Movement Commands let a force move without an initiative roll.\n[2.] Other words about terrain costs.\n";
    let flagged = format!("{standard}PART TWO: EXCLUSIVE RULES\n[1.] Heat halves the march of infantry columns.\n[2.] To receive a Movement Command without an initiative roll (see ¶1), a force must start on a road.\n");
    let f = findings(&flagged, "bracketed-parts");
    let t = f.iter().find(|f| f.code == "T0105").expect("T0105");
    assert!(t.notes.iter().any(|n| n.contains("did you mean Standard")), "{:?}", t.notes);
    let named = format!("{standard}PART TWO: EXCLUSIVE RULES\n[1.] Heat halves the march of infantry columns.\n[2.] To receive a Movement Command without an initiative roll (see Standard Rules ¶1), a force must start on a road.\n");
    assert!(findings(&named, "bracketed-parts").iter().all(|f| f.code != "T0105"));
}
