//! One rule many times: the attack resolution by (a) the VM, (b) hand-written Rust,
//! (c) Rhai, over the same situations and dice. One iteration resolves all of them.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kriegsspiel_bench::attack::{Bench, Impl, SITUATIONS};
use std::time::Duration;

fn attack(c: &mut Criterion) {
    let prog = kriegsspiel_bench::peter_with_bench();
    let mut bench = Bench::new(&prog, SITUATIONS);
    let expected = bench.check_agreement();
    let mut group = c.benchmark_group("attack");
    group.throughput(Throughput::Elements(SITUATIONS as u64));
    for (name, which) in [("vm", Impl::Vm), ("hand", Impl::Hand), ("rhai", Impl::Rhai)] {
        group.sample_size(if which == Impl::Rhai { 10 } else { 30 });
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for i in 0..iters {
                    // Session::call leaves its arguments on the register stack; a fresh
                    // set of sessions now and then keeps that from growing without end.
                    if which == Impl::Vm && i > 0 && i % 200 == 0 {
                        bench = Bench::new(&prog, SITUATIONS);
                    }
                    let (t, r) = bench.sweep(which);
                    assert!(r == expected, "{name} disagrees with the VM");
                    total += t;
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, attack);
criterion_main!(benches);
