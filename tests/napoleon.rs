//! Napoleon at the Crossroads (issue 11): the skeleton's contents and layers. Every
//! paragraph of both parts is listed; only paragraphs without rule effect are waived,
//! and everything not yet encoded is counted missing.

use kriegsspiel_compiler::{compile, load};

#[test]
fn napoleon_lists_both_parts_and_counts_the_rest_missing() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let sources = load(&root.join("rulebooks/napoleon-at-the-crossroads")).expect("loads");
    let c = compile(&sources);
    assert!(!c.has_errors());
    let r = &c.report;
    // Standard 1-210 and Exclusive 1-196 without the Exclusive [13.] the text lacks.
    assert_eq!(r.paragraphs, 405);
    assert_eq!(r.contents.iter().filter(|e| e.0.starts_with("Standard[")).count(), 210);
    assert_eq!(r.contents.iter().filter(|e| e.0.starts_with("Exclusive[")).count(), 195);
    assert_eq!((r.encoded.len(), r.waived.len(), r.missing.len()), (3, 10, 392));
    let layers: Vec<(&str, bool)> = r.layers.iter().map(|l| (l.0.as_str(), l.2)).collect();
    assert_eq!(layers, [("base", false), ("exclusive", false), ("campaign", true)]);
    // Without a sequence of play it is checked, not played.
    assert!(c.diagnostics.iter().any(|d| d.code == "W0004"));
}
