//! # pyrand
//!
//! A bit-exact port of the parts of CPython 3.11's `random` module that the CrabPath
//! simulations use (`random.seed(42)` / `random.Random(42)` in reference `sims/*.py`): the
//! Mersenne Twister MT19937 core of `Modules/_randommodule.c` and the pure-Python helpers
//! of `Lib/random.py` built on it.
//!
//! Reproduced behaviour, for a [`Random`] created with [`Random::new`]`(seed)`:
//!
//! | Rust | CPython 3.11 |
//! |---|---|
//! | [`Random::new`]`(seed)` | `random.Random(seed)` / `random.seed(seed)` for an `int` seed (`init_by_array` over the 32-bit words of `abs(seed)`, least significant first; `0` → key `[0]`) |
//! | [`Random::next_u32`] | `genrand_uint32()`, i.e. `getrandbits(32)` |
//! | [`Random::random`] | `random()` — `(a >> 5, b >> 6)` → 53-bit float in `[0, 1)` |
//! | [`Random::getrandbits`]`(k)` | `getrandbits(k)` for `k ≤ 64` (words least significant first; a partial last word keeps its top bits) |
//! | [`Random::randbelow`]`(n)` | `_randbelow_with_getrandbits(n)`: `k = n.bit_length()`, redraw `getrandbits(k)` while `≥ n` |
//! | [`Random::choice`] / [`Random::choice_index`] | `choice(seq)` = `seq[_randbelow(len(seq))]` |
//!
//! Nothing else of `random` is provided: `randint`, `uniform`, `shuffle`, `sample`, the
//! distributions and seeding from strings/bytes are not used by any simulation.
//!
//! ```
//! let mut r = pyrand::Random::new(42);
//! assert_eq!(r.random(), 0.6394267984578837);
//! let ids = ["a", "b", "c"];
//! let _pick: &&str = r.choice(&ids);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// A CPython-compatible random number generator (MT19937 state plus the `random.py`
/// algorithms on top of it). Cloning copies the full state.
#[derive(Clone)]
pub struct Random {
    mt: [u32; N],
    mti: usize,
}

impl std::fmt::Debug for Random {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Random")
            .field("mti", &self.mti)
            .finish_non_exhaustive()
    }
}

impl Random {
    /// `random.Random(seed)` for a non-negative integer seed (CPython seeds with
    /// `abs(seed)`, so a negative Python seed `-s` equals `Random::new(s)`).
    pub fn new(seed: u64) -> Self {
        let lo = seed as u32;
        let hi = (seed >> 32) as u32;
        if hi == 0 {
            Self::from_key(&[lo])
        } else {
            Self::from_key(&[lo, hi])
        }
    }

    /// MT19937 `init_by_array(key)` (CPython's seeding of an integer goes through it
    /// with the 32-bit words of the integer, least significant first). An empty key
    /// is treated as `[0]`, as CPython does for seed 0.
    pub fn from_key(key: &[u32]) -> Self {
        let key: &[u32] = if key.is_empty() { &[0] } else { key };
        let mut r = Random::init_genrand(19_650_218);
        let mt = &mut r.mt;
        let mut i = 1usize;
        let mut j = 0usize;
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1] ^ (mt[i - 1] >> 30);
            mt[i] = (mt[i] ^ prev.wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        r
    }

    fn init_genrand(s: u32) -> Self {
        let mut mt = [0u32; N];
        mt[0] = s;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Random { mt, mti: N }
    }

    fn twist(&mut self) {
        let mt = &mut self.mt;
        for kk in 0..N {
            let y = (mt[kk] & UPPER_MASK) | (mt[(kk + 1) % N] & LOWER_MASK);
            let mag = if y & 1 == 0 { 0 } else { MATRIX_A };
            mt[kk] = mt[(kk + M) % N] ^ (y >> 1) ^ mag;
        }
        self.mti = 0;
    }

    /// The next raw 32-bit output (`genrand_uint32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.mti >= N {
            self.twist();
        }
        let mut y = self.mt[self.mti];
        self.mti += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `random()`: a float in `[0, 1)` with 53 random bits,
    /// `((a >> 5) · 2²⁶ + (b >> 6)) / 2⁵³` from two consecutive outputs.
    pub fn random(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `getrandbits(k)` for `0 ≤ k ≤ 64` (`k = 0` → 0 without consuming output).
    ///
    /// # Panics
    /// If `k > 64` (CPython returns a big integer there; no simulation needs one).
    pub fn getrandbits(&mut self, k: u32) -> u64 {
        assert!(k <= 64, "getrandbits: k = {k} > 64 is not supported");
        match k {
            0 => 0,
            1..=32 => u64::from(self.next_u32() >> (32 - k)),
            _ => {
                let low = u64::from(self.next_u32());
                let high = u64::from(self.next_u32() >> (64 - k));
                low | (high << 32)
            }
        }
    }

    /// `_randbelow(n)` (CPython's `_randbelow_with_getrandbits`): a uniform integer in
    /// `[0, n)` by rejection over `getrandbits(n.bit_length())`.
    ///
    /// # Panics
    /// If `n == 0` (CPython would loop forever or raise, depending on the caller).
    pub fn randbelow(&mut self, n: u64) -> u64 {
        assert!(n > 0, "randbelow: n must be positive");
        let k = 64 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// The index `choice(seq)` would pick from a sequence of length `len`.
    ///
    /// # Panics
    /// If `len == 0` (CPython raises `IndexError: Cannot choose from an empty
    /// sequence`).
    pub fn choice_index(&mut self, len: usize) -> usize {
        assert!(len > 0, "Cannot choose from an empty sequence");
        self.randbelow(len as u64) as usize
    }

    /// `choice(seq)`.
    ///
    /// # Panics
    /// If `seq` is empty; see [`Random::try_choice`] for a non-panicking variant.
    pub fn choice<'a, T>(&mut self, seq: &'a [T]) -> &'a T {
        &seq[self.choice_index(seq.len())]
    }

    /// `choice(seq)`, `None` (and no output consumed) for an empty slice.
    pub fn try_choice<'a, T>(&mut self, seq: &'a [T]) -> Option<&'a T> {
        if seq.is_empty() {
            None
        } else {
            Some(self.choice(seq))
        }
    }
}

#[cfg(test)]
mod tests {
    //! Expected values: CPython 3.11 random, seed 42 unless stated (generated with
    //! CPython 3.11.7).
    use super::*;

    #[test]
    fn first_u32_outputs_seed_42() {
        let mut r = Random::new(42);
        let got: Vec<u32> = (0..8).map(|_| r.next_u32()).collect();
        assert_eq!(
            got,
            [
                2746317213, 478163327, 107420369, 3184935163, 1181241943, 1051802512, 958682846,
                599310825
            ]
        );
    }

    #[test]
    fn random_floats_seed_42() {
        let mut r = Random::new(42);
        let got: Vec<f64> = (0..6).map(|_| r.random()).collect();
        assert_eq!(
            got,
            [
                0.6394267984578837,
                0.025010755222666936,
                0.27502931836911926,
                0.22321073814882275,
                0.7364712141640124,
                0.6766994874229113
            ]
        );
        // Across a twist: the 1001st draw.
        let mut r = Random::new(42);
        for _ in 0..1000 {
            r.random();
        }
        assert_eq!(r.random(), 0.09935462460613032);
    }

    #[test]
    fn other_seeds_including_multi_word_keys() {
        // CPython 3.11 random, seeds as listed.
        let cases: [(u64, [u32; 3]); 6] = [
            (0, [3626764237, 1654615998, 3255389356]),
            (1, [577090037, 2444712010, 3639700191]),
            (1 << 32, [485306839, 1508871100, 1794561286]),
            ((1 << 32) + 5, [675479763, 2085189291, 1213270837]),
            (u64::MAX, [93740670, 1068495656, 1452108352]),
            (12345, [1789368711, 3146859322, 43676229]),
        ];
        for (seed, want) in cases {
            let mut r = Random::new(seed);
            let got = [r.next_u32(), r.next_u32(), r.next_u32()];
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn getrandbits_widths() {
        // CPython 3.11 random, seed 42: getrandbits(k) for k = 1, 5, 31, 33, 64, 0, 40.
        let mut r = Random::new(42);
        let got: Vec<u64> = [1, 5, 31, 33, 64, 0, 40]
            .into_iter()
            .map(|k| r.getrandbits(k))
            .collect();
        assert_eq!(
            got,
            [
                1,
                3,
                53710184,
                3184935163,
                4117511471858006928,
                0,
                808053162473
            ]
        );
    }

    #[test]
    fn randbelow_matches() {
        // CPython 3.11 random, seed 42: _randbelow(n) for the listed n.
        let mut r = Random::new(42);
        let got: Vec<u64> = [1, 2, 3, 10, 20, 1000, (1 << 33) + 7, u64::MAX]
            .into_iter()
            .map(|n| r.randbelow(n))
            .collect();
        assert_eq!(got, [0, 0, 2, 4, 7, 228, 2342331444, 7783083932390163561]);
    }

    #[test]
    fn choice_matches() {
        // CPython 3.11 random, seed 42: choice(range(20)) twelve times.
        let seq: Vec<u32> = (0..20).collect();
        let mut r = Random::new(42);
        let got: Vec<u32> = (0..12).map(|_| *r.choice(&seq)).collect();
        assert_eq!(got, [3, 0, 8, 7, 7, 4, 3, 17, 2, 18, 13, 1]);
        // CPython 3.11 random, seed 7: choice(range(15)) ten times.
        let mut r = Random::new(7);
        let got: Vec<usize> = (0..10).map(|_| r.choice_index(15)).collect();
        assert_eq!(got, [5, 2, 6, 10, 0, 1, 13, 8, 1, 5]);
    }

    #[test]
    fn try_choice_empty() {
        let mut r = Random::new(42);
        let empty: [u8; 0] = [];
        assert!(r.try_choice(&empty).is_none());
        assert_eq!(r.next_u32(), 2746317213, "no output consumed");
    }
}
