//! `check` time: compile (parse, check, codegen, verify, examples) of in-memory sources,
//! and loading the files, for every rulebook that compiles.

use criterion::{criterion_group, criterion_main, Criterion};
use kriegsspiel_bench::{repo_root, rulebooks};

fn check(c: &mut Criterion) {
    let mut group = c.benchmark_group("check");
    group.sample_size(30);
    for (name, rel) in rulebooks() {
        let path = repo_root().join(&rel);
        let Ok(sources) = kriegsspiel_compiler::load(&path) else { continue };
        if kriegsspiel_compiler::compile(&sources).program.is_none() {
            continue;
        }
        group.bench_function(format!("compile/{name}"), |b| {
            b.iter(|| kriegsspiel_compiler::compile(&sources).program.is_some())
        });
        group.bench_function(format!("load/{name}"), |b| {
            b.iter(|| kriegsspiel_compiler::load(&path).expect("load").len())
        });
    }
    group.finish();
}

criterion_group!(benches, check);
criterion_main!(benches);
