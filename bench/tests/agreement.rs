//! The three implementations of the attack resolution agree on every situation.

use kriegsspiel_bench::attack::{situations, Bench, Impl, SEED, SITUATIONS};

#[test]
fn vm_hand_and_rhai_agree_on_every_situation() {
    let prog = kriegsspiel_bench::peter_with_bench();
    let mut bench = Bench::new(&prog, SITUATIONS);
    let results = bench.check_agreement();
    assert_eq!(results.len(), SITUATIONS);
    // More than one result code, and every feature of the rule exercised.
    let mut codes = results.clone();
    codes.sort();
    codes.dedup();
    assert!(codes.len() >= 5, "results {codes:?}");
    let c = bench.coverage();
    eprintln!("{c:?}");
    for (what, n) in [
        ("stream", c.stream),
        ("entrenchment", c.entrenchment),
        ("redoubt", c.redoubt),
        ("cover", c.cover),
        ("demoralized", c.demoralized),
        ("leaders", c.leaders),
        ("shared hex", c.shared_hex),
        ("reduced", c.reduced),
    ] {
        assert!(n >= SITUATIONS / 50, "only {n} situations with {what}");
    }
    // A second sweep gives the same results (no state leaks between calls), and the
    // native code gives the VM's.
    assert!(bench.native.is_some(), "build.rs translated Peter plus bench.ks");
    assert_eq!(bench.sweep(Impl::Vm).1, results);
    assert_eq!(bench.sweep(Impl::Native).1, results);
    assert_eq!(bench.sweep(Impl::Rhai).1, results);
}

#[test]
fn situations_are_deterministic() {
    let prog = kriegsspiel_bench::peter_with_bench();
    let a = situations(&prog, 200, SEED);
    let b = situations(&prog, 200, SEED);
    let flat = |v: &[kriegsspiel_bench::attack::BoardSpec]| {
        v.iter().flat_map(|b| b.attacks.clone()).collect::<Vec<_>>()
    };
    assert_eq!(flat(&a), flat(&b));
    assert_eq!(flat(&a).len(), 200);
}
