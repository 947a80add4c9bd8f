//! Repetitions and medians: the report's timing discipline (no criterion in the
//! report binary, so that every figure comes from one run).

use std::time::{Duration, Instant};

/// The median of some durations (the lower middle for an even count).
pub fn median(mut v: Vec<Duration>) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort();
    v[(v.len() - 1) / 2]
}

/// Run `f` `reps` times and return the median wall time of one run.
pub fn median_of<T>(reps: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        std::hint::black_box(f());
        times.push(t.elapsed());
    }
    median(times)
}

/// Nanoseconds as a float, for reporting.
pub fn ns(d: Duration) -> f64 {
    d.as_secs_f64() * 1e9
}

/// A duration in a readable unit (ns, µs, ms or s), three significant figures.
pub fn human(d: Duration) -> String {
    let n = ns(d);
    if n < 1e3 {
        format!("{n:.1} ns")
    } else if n < 1e6 {
        format!("{:.2} µs", n / 1e3)
    } else if n < 1e9 {
        format!("{:.2} ms", n / 1e6)
    } else {
        format!("{:.2} s", n / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_picks_the_middle() {
        let d = |n| Duration::from_nanos(n);
        assert_eq!(median(vec![d(5), d(1), d(3)]), d(3));
        assert_eq!(median(vec![d(4), d(1), d(3), d(2)]), d(2));
        assert_eq!(median(vec![]), Duration::ZERO);
    }

    #[test]
    fn human_units() {
        assert_eq!(human(Duration::from_nanos(12)), "12.0 ns");
        assert_eq!(human(Duration::from_micros(1500)), "1.50 ms");
    }
}
