//! Whole games: one complete game per scenario with random agents, no log.

use criterion::{criterion_group, criterion_main, Criterion};
use kriegsspiel_bench::games;

fn whole_games(c: &mut Criterion) {
    let mut group = c.benchmark_group("game");
    group.sample_size(20);
    for (label, prog) in kriegsspiel_bench::playable() {
        for scenario in games::scenarios(&prog) {
            // A new seed every iteration: the figure is a mean over many different games.
            let mut seed = 0u64;
            group.bench_function(format!("{label}{scenario}"), |b| {
                b.iter(|| {
                    seed += 1;
                    games::play(&prog, &scenario, seed).stats.decisions
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, whole_games);
criterion_main!(benches);
