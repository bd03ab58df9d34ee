//! Exact samplers with integer arithmetic only (Canonne, Kamath & Steinke 2020, "The
//! Discrete Gaussian for Differential Privacy", NeurIPS; Algorithms 1–3).
//!
//! Every sampler here consumes the random bits of the generator it is given and uses
//! only integer arithmetic on `u128`/`i128` (checked where an overflow is conceivable),
//! so its output distribution is **exactly** the stated one — no floating-point
//! rounding, no truncated tails — and the same seed gives the same draws on every
//! machine. They are the building blocks of the floating-point-safe releases in
//! [`super::snap`].
//!
//! | sampler | distribution | source |
//! |---|---|---|
//! | [`uniform_below`] | uniform on {0, …, n−1} | Lemire's multiply-and-reject (n < 2⁶⁴), else rejection from ⌈log₂ n⌉ bits; no modulo bias |
//! | [`bernoulli_ratio`] | Bernoulli(num/den) | lazy comparison of random bits with the binary expansion of num/den (2 bits on average) |
//! | [`bernoulli_dyadic`] | Bernoulli(num/2ᵏ), any k | comparison with k uniform bits |
//! | [`bernoulli_exp_neg`] | Bernoulli(e^{−γ}), γ = num/den ≥ 0 | CKS Alg. 1 |
//! | [`discrete_laplace`] | P(y) ∝ e^{−\|y\|/t}, integer scale t | CKS Alg. 2 with s = 1 |
//! | [`discrete_laplace_rational`] | P(y) ∝ e^{−\|y\|·s/t}, scale t/s | CKS Alg. 2 |
//! | [`discrete_gaussian`] | P(y) ∝ e^{−y²/(2σ²)}, integer σ | CKS Alg. 3 with t = σ (see below) |
//! | [`discrete_gaussian_rational`] | P(y) ∝ e^{−y²/(2σ²)}, σ² = num/den | CKS Alg. 3 |
//! | [`exponential_mechanism`] | P(i) ∝ e^{λ·sᵢ}, integer scores, dyadic λ | rejection from the uniform proposal |
//!
//! All of them are methods of [`ExactRng`], which wraps the generator: whole 64-bit words
//! for uniform integers, and a 64-bit buffer from which single bits are taken for the
//! Bernoulli comparisons (a release of many draws uses one `ExactRng`, so a draw costs
//! about 14 bytes of generator output instead of one word per Bernoulli trial). The free
//! functions of the same names wrap one draw.
//!
//! # Bernoulli(e^{−γ}) (CKS Algorithm 1)
//!
//! For γ ∈ [0, 1]: K ← 1; repeat { A ∼ Bernoulli(γ/K); if A = 0 stop; K ← K + 1 };
//! return [K odd]. P(K odd) = Σ_k (−γ)^k/k! = e^{−γ}. For γ > 1 the integer part is
//! peeled off: ⌊γ⌋ independent Bernoulli(e^{−1}) must all succeed. Bernoulli(γ/K) is
//! drawn as Bernoulli(γ)·Bernoulli(1/K) (two independent draws, so no product of
//! denominators is ever formed). Both loops stop at the first failure, so the expected
//! work is O(1) for every γ, however large.
//!
//! # Discrete Gaussian with an integer σ
//!
//! CKS Alg. 3 draws Y from the discrete Laplace with scale t and accepts it with
//! probability exp(−(|Y| − σ²/t)²/(2σ²)); the accepted Y has P(y) ∝ e^{−y²/(2σ²)} for
//! **any** t > 0 (the e^{−|y|/t} factors cancel; t = ⌊σ⌋ + 1 only tunes the acceptance
//! rate). With an integer σ we take t = σ, so that σ²/t = σ and the exponent is
//! r²/2 with r = |Y − σ|/σ = n + a/σ (n, a integers, 0 ≤ a < σ). Then
//! e^{−r²/2} = e^{−n²/2} · e^{−n·a/σ} · e^{−(a/σ)²/2}, three independent Bernoulli draws
//! with rational parameters whose numerators and denominators are at most n²,
//! n·σ and σ — no squares of σ-sized numbers, so σ up to 2¹⁰⁶ fits `u128` arithmetic
//! (the last factor uses Alg. 1 with Bernoulli(γ/K) = Bernoulli(a/σ)²·Bernoulli(1/(2K))).
//! The acceptance rate is about √(2π)·e^{−1/2}/2 ≈ 0.76.
//!
//! # Limits
//!
//! Integer scales are at most [`MAX_SCALE`] = 2¹⁰⁶. A discrete Laplace draw |Y| = U + t·V
//! is below 2¹²⁶ unless V > 2²⁰, i.e. unless more than 2²⁰ consecutive Bernoulli(e^{−1})
//! draws succeed (probability below e^{−10⁶}); the samplers then panic instead of
//! returning a wrong value. Loops whose exact count does not fit 128 bits run until the
//! first failure; they differ from the exact algorithm only on runs of more than 2¹²⁸
//! draws. In this sense every run that returns, returns an exact draw.

use rand::RngCore;

/// The largest integer noise scale (discrete Laplace t, discrete Gaussian σ) accepted: 2¹⁰⁶.
pub const MAX_SCALE: u128 = 1 << 106;

/// Panics, naming only the public scale, unless 1 ≤ t ≤ [`MAX_SCALE`] (the range of the
/// discrete Laplace samplers' integer scale or numerator).
fn assert_laplace_scale(t: u128) {
    assert!(
        (1..=MAX_SCALE).contains(&t),
        "discrete Laplace scale must be in 1..=2^106, got {t}"
    );
}

/// The random source of the exact samplers: a generator plus a 64-bit buffer of single
/// bits. Every method is deterministic given the generator's stream, so the same seed
/// gives the same draws everywhere; bits left in the buffer when the `ExactRng` is
/// dropped are discarded.
pub struct ExactRng<'a, R: RngCore + ?Sized> {
    rng: &'a mut R,
    buf: u64,
    left: u32,
}

impl<'a, R: RngCore + ?Sized> ExactRng<'a, R> {
    /// Wraps `rng`.
    pub fn new(rng: &'a mut R) -> Self {
        ExactRng {
            rng,
            buf: 0,
            left: 0,
        }
    }

    /// One uniform random bit (from the buffer, refilled with one `u64` every 64 bits).
    #[inline]
    pub fn bit(&mut self) -> bool {
        if self.left == 0 {
            self.buf = self.rng.next_u64();
            self.left = 64;
        }
        let b = self.buf >> 63 == 1;
        self.buf <<= 1;
        self.left -= 1;
        b
    }

    /// A fair coin.
    #[inline]
    pub fn fair_coin(&mut self) -> bool {
        self.bit()
    }

    /// `bits` (1..=128) uniform random bits from whole words.
    #[inline]
    fn random_bits(&mut self, bits: u32) -> u128 {
        debug_assert!((1..=128).contains(&bits));
        if bits <= 64 {
            (self.rng.next_u64() >> (64 - bits)) as u128
        } else {
            let hi = (self.rng.next_u64() >> (128 - bits)) as u128;
            (hi << 64) | self.rng.next_u64() as u128
        }
    }

    /// Uniform on {0, …, n − 1}, 1 ≤ n < 2⁶⁴, from one `u64` (Lemire 2019: multiply and
    /// keep the high half, rejecting the 2⁶⁴ mod n low values that would bias it; exact).
    #[inline]
    fn below_u64(&mut self, n: u64) -> u64 {
        let mut m = self.rng.next_u64() as u128 * n as u128;
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = self.rng.next_u64() as u128 * n as u128;
            }
        }
        (m >> 64) as u64
    }

    /// A uniform integer in {0, …, n − 1}, exactly (no modulo bias): Lemire's
    /// multiply-and-reject from one `u64` when n < 2⁶⁴, otherwise rejection from the top
    /// ⌈log₂ n⌉ bits. `n = 1` returns 0 without drawing. Panics if `n = 0`.
    #[inline]
    pub fn uniform_below(&mut self, n: u128) -> u128 {
        assert!(n > 0, "uniform_below(0)");
        if n == 1 {
            0
        } else if n <= u64::MAX as u128 {
            self.below_u64(n as u64) as u128
        } else {
            let bits = 128 - (n - 1).leading_zeros();
            loop {
                let x = self.random_bits(bits);
                if x < n {
                    return x;
                }
            }
        }
    }

    /// Bernoulli(num/den) exactly: compares uniform random bits with the binary expansion
    /// of num/den (long division), stopping at the first difference — 2 bits on average.
    /// `num ≥ den` gives `true` and `num = 0` gives `false`, both without drawing. Panics if
    /// `den = 0`.
    #[inline]
    pub fn bernoulli_ratio(&mut self, num: u128, den: u128) -> bool {
        assert!(den > 0, "bernoulli_ratio with a zero denominator");
        if num == 0 {
            return false;
        }
        if num >= den {
            return true;
        }
        if den <= u64::MAX as u128 {
            return self.bernoulli_ratio_u64(num as u64, den as u64);
        }
        // U = 0.u₁u₂… < p = 0.p₁p₂… iff pᵢ = 1 at the first i with uᵢ ≠ pᵢ.
        let mut r = num; // 0 < r < den: p's remainder
        loop {
            let rest = den - r;
            let p_bit = r >= rest; // 2r ≥ den
            r = if p_bit { r - rest } else { r + r };
            if self.bit() != p_bit {
                return p_bit;
            }
            if r == 0 {
                // p's remaining bits are all 0: U < p has probability 0.
                return false;
            }
        }
    }

    /// [`Self::bernoulli_ratio`] for 0 < num < den < 2⁶⁴.
    #[inline]
    fn bernoulli_ratio_u64(&mut self, num: u64, den: u64) -> bool {
        debug_assert!(0 < num && num < den);
        let mut r = num;
        loop {
            let rest = den - r;
            let p_bit = r >= rest;
            r = if p_bit { r - rest } else { r + r };
            if self.bit() != p_bit {
                return p_bit;
            }
            if r == 0 {
                return false;
            }
        }
    }

    /// Bernoulli(num/2ᵏ) exactly, for any k (for k > 128 the top k − 128 random bits must
    /// all be zero, checked 64 at a time). `num ≥ 2ᵏ` gives `true`.
    pub fn bernoulli_dyadic(&mut self, num: u128, k: u32) -> bool {
        if num == 0 {
            return false;
        }
        if k < 128 && num >= (1u128 << k) {
            return true;
        }
        if k <= 128 {
            return self.random_bits(k) < num;
        }
        // U = (high part: k − 128 bits)·2¹²⁸ + (low part: 128 bits) < num < 2¹²⁸ iff the
        // high part is 0 and the low part is < num.
        let mut extra = k - 128;
        while extra > 0 {
            let take = extra.min(64);
            if self.rng.next_u64() >> (64 - take) != 0 {
                return false;
            }
            extra -= take;
        }
        self.random_bits(128) < num
    }

    /// CKS Algorithm 1 for γ ∈ [0, 1], with Bernoulli(γ) given as a sampler:
    /// Bernoulli(γ/K) = Bernoulli(1/K)·Bernoulli(γ).
    #[inline]
    fn exp_neg_unit<F: FnMut(&mut Self) -> bool>(&mut self, mut bern_gamma: F) -> bool {
        // K = 1: Bernoulli(1/1) = 1 needs no draw.
        if !bern_gamma(self) {
            return true;
        }
        let mut k: u64 = 2;
        while self.bernoulli_ratio_u64(1, k) && bern_gamma(self) {
            k += 1;
        }
        k % 2 == 1
    }

    /// Bernoulli(e^{−1}) exactly (CKS Alg. 1 with γ = 1).
    #[inline]
    pub fn bernoulli_exp_neg_one(&mut self) -> bool {
        let mut k: u64 = 2;
        while self.bernoulli_ratio_u64(1, k) {
            k += 1;
        }
        k % 2 == 1
    }

    /// Bernoulli(e^{−(n + f)}) for an integer part `n` (`None`: at least 2¹²⁸) and a
    /// fractional part f ∈ [0, 1) given as a Bernoulli(f) sampler (CKS Alg. 1, γ > 1).
    #[inline]
    fn exp_neg_split<F: FnMut(&mut Self) -> bool>(
        &mut self,
        int_part: Option<u128>,
        bern_frac: F,
    ) -> bool {
        match int_part {
            Some(n) => {
                let mut i = 0u128;
                while i < n {
                    if !self.bernoulli_exp_neg_one() {
                        return false;
                    }
                    i += 1;
                }
            }
            // ≥ 2¹²⁸ successes needed: only a run of more than 2¹²⁸ draws could get through.
            None => loop {
                if !self.bernoulli_exp_neg_one() {
                    return false;
                }
            },
        }
        self.exp_neg_unit(bern_frac)
    }

    /// Bernoulli(e^{−γ}) for the rational γ = num/den ≥ 0, exactly (CKS Alg. 1). Panics
    /// if `den = 0`.
    pub fn bernoulli_exp_neg(&mut self, num: u128, den: u128) -> bool {
        assert!(den > 0, "bernoulli_exp_neg with a zero denominator");
        // (u128 division is slow; γ < 1 is the common case)
        let (n, rem) = if num < den {
            (0, num)
        } else {
            (num / den, num % den)
        };
        self.exp_neg_split(Some(n), |s| s.bernoulli_ratio(rem, den))
    }

    /// Bernoulli(e^{−γ}) for the dyadic γ = p·2ᵉ ≥ 0 (any exponent e), exactly.
    pub fn bernoulli_exp_neg_dyadic(&mut self, p: u128, e: i32) -> bool {
        if p == 0 {
            return true;
        }
        if e >= 0 {
            let e = e as u32;
            let int = if e < 128 && p.leading_zeros() >= e {
                Some(p << e)
            } else {
                None
            };
            return self.exp_neg_split(int, |_| false);
        }
        let k = e.unsigned_abs();
        let (int, frac) = if k < 128 {
            (p >> k, p & ((1u128 << k) - 1))
        } else {
            (0, p)
        };
        self.exp_neg_split(Some(int), |s| s.bernoulli_dyadic(frac, k))
    }

    /// V ∼ Geometric(1 − e^{−1}): the number of successes of Bernoulli(e^{−1}) before the
    /// first failure, P(V = v) ∝ e^{−v}.
    #[inline]
    fn geometric_exp_neg_one(&mut self) -> u128 {
        let mut v: u128 = 0;
        while self.bernoulli_exp_neg_one() {
            v += 1;
        }
        v
    }

    /// One try of the U-part of CKS Alg. 2: U uniform on {0..t−1}, kept with probability
    /// e^{−U/t} (`None` when rejected). Repeated until kept: P(U = u) ∝ e^{−u/t}.
    #[inline]
    fn try_fine_part(&mut self, t: u128) -> Option<u128> {
        if t <= u64::MAX as u128 {
            let t = t as u64;
            let u = self.below_u64(t);
            if u != 0 && !self.exp_neg_unit(|s| s.bernoulli_ratio_u64(u, t)) {
                return None;
            }
            Some(u as u128)
        } else {
            let u = self.uniform_below(t);
            if !self.exp_neg_unit(|s| s.bernoulli_ratio(u, t)) {
                return None;
            }
            Some(u)
        }
    }

    /// U with P(U = u) ∝ e^{−u/t} on {0..t−1}.
    #[inline]
    fn fine_part(&mut self, t: u128) -> u128 {
        loop {
            if let Some(u) = self.try_fine_part(t) {
                return u;
            }
        }
    }

    /// X = U + t·V of CKS Alg. 2 (P(X = x) ∝ e^{−x/t}, x ≥ 0), or `None` when U is
    /// rejected.
    #[inline]
    fn geometric_magnitude(&mut self, t: u128) -> Option<u128> {
        let u = self.try_fine_part(t)?;
        // V ∼ Geometric(1 − e^{−1}); then U + tV has P(x) ∝ e^{−x/t}.
        let v = self.geometric_exp_neg_one();
        let x = t
            .checked_mul(v)
            .and_then(|tv| tv.checked_add(u))
            .filter(|x| *x < 1 << 126)
            .expect("discrete Laplace: more than 2^20 consecutive Bernoulli(1/e) successes (probability below e^-1000000)");
        Some(x)
    }

    /// A draw from the discrete Laplace distribution with integer scale t ≥ 1:
    /// P(Y = y) = (1 − e^{−1/t})/(1 + e^{−1/t}) · e^{−|y|/t}, y ∈ ℤ (CKS Alg. 2, s = 1).
    /// Adding it to an integer query of ℓ1 sensitivity Δ is (Δ/t)-DP.
    /// Panics if t = 0 or t > [`MAX_SCALE`].
    pub fn discrete_laplace(&mut self, t: u128) -> i128 {
        // CKS Alg. 2 with s = 1: the rational sampler's draws, y = x/1.
        self.discrete_laplace_rational(t, 1)
    }

    /// argmax over the indices j with `active(j)` of aⱼ + Zⱼ (the first such index on
    /// ties), Zⱼ i.i.d. discrete Laplace with integer scale t; `None` if no index is
    /// active. Requires |aⱼ| ≤ 2¹¹⁰.
    ///
    /// Exactly the distribution of drawing every Zⱼ in full (report-noisy-max), but lazily:
    /// CKS Alg. 2 writes |Z| = U + t·V with U (on {0..t−1}), V and the sign independent
    /// before the final rejection of "negative zero", so they may be drawn in any order.
    /// The sign and V are drawn first for every index, which pins aⱼ + Zⱼ to an interval of
    /// t consecutive integers; U is drawn only for indices whose interval reaches the
    /// largest lower end seen (the others are strictly below another key and cannot win),
    /// and for a negative sign with V = 0, where it decides the rejection.
    pub fn noisy_argmax<F: Fn(usize) -> bool>(
        &mut self,
        a: &[i128],
        active: F,
        t: u128,
    ) -> Option<usize> {
        assert_laplace_scale(t);
        let overflow = "noisy argmax: |a| must be at most 2^110";
        let span = (t - 1) as i128;
        // Candidates: (index, hi, the exact key or the pending coarse part).
        let mut cand: Vec<(usize, i128, Key)> = Vec::new();
        let mut best_lo = i128::MIN;
        for (j, &aj) in a.iter().enumerate() {
            if !active(j) {
                continue;
            }
            assert!(aj.unsigned_abs() <= 1 << 110, "{overflow}");
            let (lo, hi, state) = loop {
                let negative = self.fair_coin();
                let v = self.geometric_exp_neg_one();
                let tv = t
                    .checked_mul(v)
                    .filter(|x| *x < 1 << 125)
                    .expect("discrete Laplace: more than 2^19 consecutive Bernoulli(1/e) successes (probability below e^-500000)")
                    as i128;
                if negative && v == 0 {
                    // −U: U = 0 is the rejected "negative zero" (restart).
                    let u = self.fine_part(t);
                    if u == 0 {
                        continue;
                    }
                    let key = aj - u as i128;
                    break (key, key, Key::Exact(key));
                }
                if negative {
                    break (aj - tv - span, aj - tv, Key::Pending { negative, tv });
                }
                break (aj + tv, aj + tv + span, Key::Pending { negative, tv });
            };
            if hi < best_lo {
                continue;
            }
            if lo > best_lo {
                best_lo = lo;
            }
            cand.push((j, hi, state));
        }
        let mut best: Option<(usize, i128)> = None;
        for (j, hi, state) in cand {
            if hi < best_lo {
                continue;
            }
            let key = match state {
                Key::Exact(k) => k,
                Key::Pending { negative, tv } => {
                    let u = self.fine_part(t) as i128;
                    if negative {
                        a[j] - tv - u
                    } else {
                        a[j] + tv + u
                    }
                }
            };
            if best.is_none_or(|(_, b)| key > b) {
                best = Some((j, key));
            }
        }
        best.map(|(j, _)| j)
    }

    /// A draw from the discrete Laplace distribution with rational scale t/s:
    /// P(Y = y) ∝ e^{−|y|·s/t} (CKS Alg. 2). Panics if s = 0, t = 0 or t > [`MAX_SCALE`].
    pub fn discrete_laplace_rational(&mut self, t: u128, s: u128) -> i128 {
        assert!(s > 0, "discrete Laplace: s must be > 0");
        assert_laplace_scale(t);
        loop {
            let Some(x) = self.geometric_magnitude(t) else {
                continue;
            };
            let y = x / s;
            let negative = self.fair_coin();
            if negative && y == 0 {
                continue;
            }
            let y = y as i128;
            return if negative { -y } else { y };
        }
    }

    /// A draw from the discrete Gaussian N_ℤ(0, σ²) with an integer σ ≥ 1:
    /// P(Y = y) ∝ e^{−y²/(2σ²)}, y ∈ ℤ (CKS Alg. 3 with t = σ; see the module docs).
    /// Adding it to an integer query of ℓ2 sensitivity Δ is Δ²/(2σ²)-zCDP (CKS Thm. 4).
    /// Panics if σ = 0 or σ > [`MAX_SCALE`].
    pub fn discrete_gaussian(&mut self, sigma: u128) -> i128 {
        assert!(
            (1..=MAX_SCALE).contains(&sigma),
            "discrete Gaussian sigma must be in 1..=2^106, got {sigma}"
        );
        loop {
            let y = self.discrete_laplace(sigma);
            let diff = y.unsigned_abs().abs_diff(sigma);
            let (n, a) = if diff < sigma {
                (0, diff)
            } else {
                (diff / sigma, diff % sigma)
            };
            // e^{−(n + a/σ)²/2} = e^{−n²/2} · e^{−n·a/σ} · e^{−(a/σ)²/2}.
            // n·a < |Y| + σ < 2¹²⁷; n² overflows only for n > 2⁶⁴ (then e^{−n²/2} needs
            // more than 2¹²⁷ successes: the `None` branch).
            let first = match n.checked_mul(n) {
                Some(n2) => self.bernoulli_exp_neg(n2, 2),
                None => self.exp_neg_split(None, |_| false),
            };
            let accept = first
                && self.bernoulli_exp_neg(n.checked_mul(a).expect("n·a < 2^127"), sigma)
                && self.exp_neg_unit(|s| {
                    s.fair_coin() && s.bernoulli_ratio(a, sigma) && s.bernoulli_ratio(a, sigma)
                });
            if accept {
                return y;
            }
        }
    }

    /// A draw from the discrete Gaussian N_ℤ(0, σ²) with a rational variance parameter
    /// σ² = num/den > 0 (CKS Alg. 3 with t = ⌊σ⌋ + 1). All arithmetic is checked `u128`;
    /// it stays far from overflow when num·den < 2⁴⁰ (larger values panic with a clear
    /// message if an intermediate overflows — use [`Self::discrete_gaussian`] with an
    /// integer σ then).
    pub fn discrete_gaussian_rational(&mut self, num: u128, den: u128) -> i128 {
        assert!(num > 0 && den > 0, "discrete Gaussian: sigma^2 must be > 0");
        let t = (num / den).isqrt() + 1;
        let overflow = "discrete Gaussian: sigma^2 = num/den too large for exact u128 arithmetic";
        // γ = (|Y| − σ²/t)²/(2σ²) = (|Y|·t·den − num)² / (2·num·den·t²)
        let gden = 2u128
            .checked_mul(num)
            .and_then(|x| x.checked_mul(den))
            .and_then(|x| x.checked_mul(t))
            .and_then(|x| x.checked_mul(t))
            .expect(overflow);
        loop {
            let y = self.discrete_laplace(t);
            let a = y
                .unsigned_abs()
                .checked_mul(t)
                .and_then(|x| x.checked_mul(den))
                .expect(overflow)
                .abs_diff(num);
            let gnum = a.checked_mul(a).expect(overflow);
            if self.bernoulli_exp_neg(gnum, gden) {
                return y;
            }
        }
    }

    /// Samples index i with probability exactly e^{λ·sᵢ} / Σⱼ e^{λ·sⱼ} (the exponential
    /// mechanism on integer scores), by rejection: propose i uniformly, accept with
    /// probability e^{−λ(max s − sᵢ)} (exact Bernoulli, [`Self::bernoulli_exp_neg_dyadic`]).
    /// The expected number of proposals is n / Σⱼ e^{−λ(max s − sⱼ)} ≤ n. Requires
    /// max s − min s < 2⁹⁶ (callers clamp the scores to ±2⁹⁴). Panics on an empty slice.
    pub fn exponential_mechanism(&mut self, scores: &[i128], lambda: Dyadic32) -> usize {
        assert!(
            !scores.is_empty(),
            "exponential mechanism over an empty range"
        );
        let max = *scores.iter().max().expect("non-empty");
        let n = scores.len() as u128;
        loop {
            let i = self.uniform_below(n) as usize;
            let w = (max - scores[i]) as u128;
            assert!(
                w < 1 << 96,
                "exponential mechanism: score range must be below 2^96"
            );
            let p = lambda.mantissa as u128 * w;
            if self.bernoulli_exp_neg_dyadic(p, lambda.exponent) {
                return i;
            }
        }
    }
}

/// A uniform integer in {0, …, n − 1} ([`ExactRng::uniform_below`]).
pub fn uniform_below<R: RngCore + ?Sized>(n: u128, rng: &mut R) -> u128 {
    ExactRng::new(rng).uniform_below(n)
}

/// Bernoulli(num/den) ([`ExactRng::bernoulli_ratio`]).
pub fn bernoulli_ratio<R: RngCore + ?Sized>(num: u128, den: u128, rng: &mut R) -> bool {
    ExactRng::new(rng).bernoulli_ratio(num, den)
}

/// Bernoulli(num/2ᵏ) ([`ExactRng::bernoulli_dyadic`]).
pub fn bernoulli_dyadic<R: RngCore + ?Sized>(num: u128, k: u32, rng: &mut R) -> bool {
    ExactRng::new(rng).bernoulli_dyadic(num, k)
}

/// Bernoulli(e^{−1}) ([`ExactRng::bernoulli_exp_neg_one`]).
pub fn bernoulli_exp_neg_one<R: RngCore + ?Sized>(rng: &mut R) -> bool {
    ExactRng::new(rng).bernoulli_exp_neg_one()
}

/// Bernoulli(e^{−num/den}) ([`ExactRng::bernoulli_exp_neg`]).
pub fn bernoulli_exp_neg<R: RngCore + ?Sized>(num: u128, den: u128, rng: &mut R) -> bool {
    ExactRng::new(rng).bernoulli_exp_neg(num, den)
}

/// Bernoulli(e^{−p·2ᵉ}) ([`ExactRng::bernoulli_exp_neg_dyadic`]).
pub fn bernoulli_exp_neg_dyadic<R: RngCore + ?Sized>(p: u128, e: i32, rng: &mut R) -> bool {
    ExactRng::new(rng).bernoulli_exp_neg_dyadic(p, e)
}

/// One discrete Laplace draw with integer scale t ([`ExactRng::discrete_laplace`]).
pub fn discrete_laplace<R: RngCore + ?Sized>(t: u128, rng: &mut R) -> i128 {
    ExactRng::new(rng).discrete_laplace(t)
}

/// One discrete Laplace draw with scale t/s ([`ExactRng::discrete_laplace_rational`]).
pub fn discrete_laplace_rational<R: RngCore + ?Sized>(t: u128, s: u128, rng: &mut R) -> i128 {
    ExactRng::new(rng).discrete_laplace_rational(t, s)
}

/// One discrete Gaussian draw with integer σ ([`ExactRng::discrete_gaussian`]).
pub fn discrete_gaussian<R: RngCore + ?Sized>(sigma: u128, rng: &mut R) -> i128 {
    ExactRng::new(rng).discrete_gaussian(sigma)
}

/// One discrete Gaussian draw with σ² = num/den ([`ExactRng::discrete_gaussian_rational`]).
pub fn discrete_gaussian_rational<R: RngCore + ?Sized>(num: u128, den: u128, rng: &mut R) -> i128 {
    ExactRng::new(rng).discrete_gaussian_rational(num, den)
}

/// One exponential-mechanism draw ([`ExactRng::exponential_mechanism`]).
pub fn exponential_mechanism<R: RngCore + ?Sized>(
    scores: &[i128],
    lambda: Dyadic32,
    rng: &mut R,
) -> usize {
    ExactRng::new(rng).exponential_mechanism(scores, lambda)
}

/// A key of [`ExactRng::noisy_argmax`]: known exactly, or a ± t·V + U with U still to draw.
enum Key {
    Exact(i128),
    Pending { negative: bool, tv: i128 },
}

/// A non-negative dyadic rational m·2ᵉ with a 32-bit mantissa (the inverse temperature
/// of [`ExactRng::exponential_mechanism`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dyadic32 {
    /// m < 2³².
    pub mantissa: u32,
    /// e.
    pub exponent: i32,
}

impl Dyadic32 {
    /// The largest m·2ᵉ with m < 2³² that is ≤ `x` (x finite, ≥ 0): rounding down.
    pub fn floor_of(x: f64) -> Self {
        assert!(x.is_finite() && x >= 0.0, "Dyadic32::floor_of({x})");
        if x == 0.0 {
            return Dyadic32 {
                mantissa: 0,
                exponent: 0,
            };
        }
        let (f, e) = libm::frexp(x); // x = f·2^e, f ∈ [0.5, 1)
                                     // ⌊f·2³²⌋ < 2³² (exact scaling, then truncation toward zero = rounding down)
        let m = libm::scalbn(f, 32).floor() as u32;
        Dyadic32 {
            mantissa: m,
            exponent: e - 32,
        }
    }
    /// The value as an `f64` (may underflow to 0 or overflow to ∞; for display and
    /// log-probabilities only).
    pub fn to_f64(self) -> f64 {
        libm::scalbn(self.mantissa as f64, self.exponent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::rng_from_seed;
    use crate::test_support::draws;

    /// Pearson chi-square of observed counts against expected probabilities (cells with
    /// expectation below 5 are pooled into one).
    fn chi_square(counts: &[usize], probs: &[f64]) -> (f64, usize) {
        let n: usize = counts.iter().sum();
        let mut chi = 0.0;
        let mut cells = 0;
        let (mut pool_o, mut pool_e) = (0.0, 0.0);
        for (&c, &p) in counts.iter().zip(probs) {
            let e = n as f64 * p;
            if e < 5.0 {
                pool_o += c as f64;
                pool_e += e;
            } else {
                chi += (c as f64 - e).powi(2) / e;
                cells += 1;
            }
        }
        if pool_e > 0.0 {
            chi += (pool_o - pool_e).powi(2) / pool_e.max(1e-300);
            cells += 1;
        }
        (chi, cells - 1)
    }

    /// Upper 1e-6 quantile of chi-square with k d.o.f. (Wilson–Hilferty, z = 4.75).
    fn chi_crit(k: usize) -> f64 {
        let k = k as f64;
        let z = 4.75;
        k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
    }

    /// Counts of draws on −w..=w (out-of-range draws counted in the last cell) and the
    /// pmf ∝ weight(y) normalised over a wide range.
    fn histogram(draws: &[i128], w: i128) -> Vec<usize> {
        let mut c = vec![0usize; (2 * w + 2) as usize];
        for &y in draws {
            if y.abs() <= w {
                c[(y + w) as usize] += 1;
            } else {
                c[(2 * w + 1) as usize] += 1;
            }
        }
        c
    }

    fn pmf(weight: impl Fn(f64) -> f64, w: i128, support: i128) -> Vec<f64> {
        let z: f64 = (-support..=support).map(|y| weight(y as f64)).sum();
        let mut p: Vec<f64> = (-w..=w).map(|y| weight(y as f64) / z).collect();
        let inside: f64 = p.iter().sum();
        p.push((1.0 - inside).max(0.0));
        p
    }

    #[test]
    fn uniform_below_is_uniform_and_unbiased() {
        // n = 3·2^62 is the worst case for modulo bias (a modulo would give P(0) = 2/3·…).
        let mut rng = rng_from_seed(1);
        for &n in &[3u128, 7, 10, 1 << 40, 3 << 62, (1u128 << 100) + 1] {
            let k = 60_000;
            let mut counts = [0usize; 3];
            for _ in 0..k {
                let x = uniform_below(n, &mut rng);
                assert!(x < n);
                // thirds of the range: cell b holds ⌈(b+1)n/3⌉ − ⌈bn/3⌉ of the n values
                counts[(x / n.div_ceil(3)) as usize] += 1;
            }
            let c = n.div_ceil(3);
            let p: Vec<f64> = (0..3u128)
                .map(|b| ((b + 1) * c).min(n).saturating_sub(b * c) as f64 / n as f64)
                .collect();
            let (chi, dof) = chi_square(&counts, &p);
            assert!(chi < chi_crit(dof), "n = {n}: {counts:?}");
        }
        assert_eq!(uniform_below(1, &mut rng), 0);
    }

    #[test]
    fn uniform_below_one_draws_nothing() {
        let mut a = rng_from_seed(3);
        let mut b = rng_from_seed(3);
        uniform_below(1, &mut a);
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn bernoulli_samplers_match_their_parameters() {
        let mut rng = rng_from_seed(2);
        let k = 200_000;
        let freq = |f: &mut dyn FnMut() -> bool| (0..k).filter(|_| f()).count() as f64 / k as f64;
        let check = |p: f64, got: f64| {
            let se = (p * (1.0 - p) / k as f64).sqrt().max(1e-9);
            assert!((got - p).abs() < 5.0 * se, "{got} vs {p}");
        };
        check(3.0 / 7.0, freq(&mut || bernoulli_ratio(3, 7, &mut rng)));
        check(0.75, freq(&mut || bernoulli_dyadic(3 << 98, 100, &mut rng)));
        check(5.0 / 32.0, freq(&mut || bernoulli_dyadic(5, 5, &mut rng)));
        // k > 128: the top k − 128 bits must be zero (3·2^126 / 2^130 = 3/16).
        check(
            3.0 / 16.0,
            freq(&mut || bernoulli_dyadic(3 << 126, 130, &mut rng)),
        );
        assert_eq!(freq(&mut || bernoulli_dyadic(3, 130, &mut rng)), 0.0);
        for &(num, den) in &[(0u128, 1u128), (1, 3), (1, 1), (5, 2), (7, 3), (40, 7)] {
            let p = (-(num as f64) / den as f64).exp();
            check(p, freq(&mut || bernoulli_exp_neg(num, den, &mut rng)));
        }
        check(
            (-1.0f64).exp(),
            freq(&mut || bernoulli_exp_neg_one(&mut rng)),
        );
        // Dyadic γ = 5·2^-3 and 3·2^1, and a γ whose fraction needs more than 128 bits.
        check(
            (-0.625f64).exp(),
            freq(&mut || bernoulli_exp_neg_dyadic(5, -3, &mut rng)),
        );
        check(
            (-6.0f64).exp(),
            freq(&mut || bernoulli_exp_neg_dyadic(3, 1, &mut rng)),
        );
        check(
            (-0.75f64).exp(),
            freq(&mut || bernoulli_exp_neg_dyadic(3 << 126, -128, &mut rng)),
        );
        check(
            (-0.375f64).exp(),
            freq(&mut || bernoulli_exp_neg_dyadic(3 << 126, -129, &mut rng)),
        );
        assert!(bernoulli_exp_neg_dyadic(0, 5, &mut rng));
        assert_eq!(
            freq(&mut || bernoulli_exp_neg_dyadic(u128::MAX, 100, &mut rng)),
            0.0
        );
    }

    #[test]
    fn discrete_laplace_matches_its_pmf_and_variance() {
        for (seed, t) in [(4u64, 1u128), (5, 3), (6, 10)] {
            let k = 100_000;
            let ys = draws(seed, k, |r| discrete_laplace(t, r));
            let w = (6 * t) as i128;
            let tf = t as f64;
            let p = pmf(|y| (-y.abs() / tf).exp(), w, 60 * t as i128);
            let (chi, dof) = chi_square(&histogram(&ys, w), &p);
            assert!(chi < chi_crit(dof), "t = {t}: chi2 {chi} dof {dof}");
            // Var = 2e^{-1/t}/(1 − e^{-1/t})²
            let q = (-1.0 / tf).exp();
            let var = 2.0 * q / (1.0 - q).powi(2);
            let emp = ys.iter().map(|&y| (y * y) as f64).sum::<f64>() / k as f64;
            // Var(Y²) ≤ E[Y⁴] ≈ 24·(t)^4 scale; 6 standard errors
            let se = (20.0 * var * var / k as f64).sqrt();
            assert!((emp - var).abs() < 6.0 * se, "t = {t}: {emp} vs {var}");
        }
    }

    #[test]
    fn discrete_laplace_rational_matches_its_pmf() {
        // scale t/s = 5/2
        let mut rng = rng_from_seed(7);
        let k = 100_000;
        let draws: Vec<i128> = (0..k)
            .map(|_| discrete_laplace_rational(5, 2, &mut rng))
            .collect();
        let p = pmf(|y| (-y.abs() * 2.0 / 5.0).exp(), 15, 200);
        let (chi, dof) = chi_square(&histogram(&draws, 15), &p);
        assert!(chi < chi_crit(dof), "chi2 {chi} dof {dof}");
        // scale 1/3 < 1: P(0) = (1 − e^{-3})/(1 + e^{-3}) ≈ 0.905
        let zeros = (0..k)
            .filter(|_| discrete_laplace_rational(1, 3, &mut rng) == 0)
            .count() as f64
            / k as f64;
        let q = (-3.0f64).exp();
        let p0 = (1.0 - q) / (1.0 + q);
        assert!((zeros - p0).abs() < 5.0 * (p0 * (1.0 - p0) / k as f64).sqrt());
    }

    #[test]
    fn discrete_gaussian_matches_its_pmf_and_variance() {
        for (seed, sigma) in [(8u64, 1u128), (9, 2), (10, 7)] {
            let k = 100_000;
            let ys = draws(seed, k, |r| discrete_gaussian(sigma, r));
            let s2 = (sigma * sigma) as f64;
            let w = (4 * sigma) as i128;
            let p = pmf(|y| (-y * y / (2.0 * s2)).exp(), w, 40 * sigma as i128);
            let (chi, dof) = chi_square(&histogram(&ys, w), &p);
            assert!(chi < chi_crit(dof), "sigma = {sigma}: chi2 {chi} dof {dof}");
            // Exact variance Σ y² p(y) (< σ², CKS 2020).
            let z: f64 = (-400i32..=400)
                .map(|y| (-(y * y) as f64 / (2.0 * s2)).exp())
                .sum();
            let var: f64 = (-400i32..=400)
                .map(|y| (y * y) as f64 * (-(y * y) as f64 / (2.0 * s2)).exp())
                .sum::<f64>()
                / z;
            assert!(var <= s2 * (1.0 + 1e-12));
            let emp = ys.iter().map(|&y| (y * y) as f64).sum::<f64>() / k as f64;
            let se = (2.0 * var * var / k as f64).sqrt().max(1e-3);
            assert!(
                (emp - var).abs() < 6.0 * se,
                "sigma = {sigma}: {emp} vs {var}"
            );
        }
    }

    #[test]
    fn discrete_gaussian_with_a_huge_sigma_has_the_right_scale() {
        // σ = 2^60: the module's decomposition never squares σ-sized numbers.
        let mut rng = rng_from_seed(11);
        let sigma = 1u128 << 60;
        let k = 20_000;
        let z: Vec<f64> = (0..k)
            .map(|_| discrete_gaussian(sigma, &mut rng) as f64 / sigma as f64)
            .collect();
        let var = z.iter().map(|x| x * x).sum::<f64>() / k as f64;
        assert!((var - 1.0).abs() < 6.0 * (2.0 / k as f64).sqrt(), "{var}");
        // P(|Z| < 1) = 0.6827 for the (essentially continuous) N(0, 1)
        let inside = z.iter().filter(|x| x.abs() < 1.0).count() as f64 / k as f64;
        assert!(
            (inside - 0.6827).abs() < 5.0 * (0.25 / k as f64).sqrt(),
            "{inside}"
        );
    }

    #[test]
    fn discrete_gaussian_rational_matches_its_pmf() {
        for (seed, num, den) in [(12u64, 3u128, 2u128), (13, 50, 3)] {
            let ys = draws(seed, 100_000, |r| discrete_gaussian_rational(num, den, r));
            let s2 = num as f64 / den as f64;
            let w = (4.0 * s2.sqrt()).ceil() as i128;
            let p = pmf(|y| (-y * y / (2.0 * s2)).exp(), w, 400);
            let (chi, dof) = chi_square(&histogram(&ys, w), &p);
            assert!(chi < chi_crit(dof), "sigma2 = {s2}: chi2 {chi} dof {dof}");
        }
    }

    #[test]
    fn exponential_mechanism_matches_log_sum_exp_probabilities() {
        // λ = 0.75 = 3·2^-2 exactly; scores spread over 12 units.
        let mut rng = rng_from_seed(14);
        let lambda = Dyadic32::floor_of(0.75);
        assert_eq!(lambda.to_f64(), 0.75);
        let s: [i128; 6] = [0, 3, 5, -2, 5, -7];
        let z: Vec<f64> = s.iter().map(|&x| 0.75 * x as f64).collect();
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let lse = m + z.iter().map(|x| (x - m).exp()).sum::<f64>().ln();
        let p: Vec<f64> = z.iter().map(|x| (x - lse).exp()).collect();
        let k = 200_000;
        let mut counts = vec![0usize; s.len()];
        for _ in 0..k {
            counts[exponential_mechanism(&s, lambda, &mut rng)] += 1;
        }
        let (chi, dof) = chi_square(&counts, &p);
        assert!(chi < chi_crit(dof), "chi2 {chi}: {counts:?}");
        // A tiny λ (exponent far below -128) is exactly uniform-ish, a huge one a point mass.
        let tiny = Dyadic32::floor_of(1e-60);
        let mut counts = [0usize; 2];
        for _ in 0..20_000 {
            counts[exponential_mechanism(&[0, 1], tiny, &mut rng)] += 1;
        }
        assert!((counts[0] as f64 / 20_000.0 - 0.5).abs() < 0.02);
        let huge = Dyadic32::floor_of(1e60);
        assert!((0..1000).all(|_| exponential_mechanism(&[0, 1, -5], huge, &mut rng) == 1));
    }

    #[test]
    fn lazy_noisy_argmax_has_the_law_of_full_report_noisy_max() {
        // Two-sample chi-square: lazy argmax vs drawing every key in full (t = 3 makes
        // ties, the negative-zero rejection and pruning all frequent).
        let a: [i128; 6] = [0, 2, 1, 2, -3, 5];
        let active = |j: usize| j != 5;
        let k = 100_000;
        let mut lazy = [0usize; 6];
        let mut full = [0usize; 6];
        let mut rng = rng_from_seed(15);
        let mut ex = ExactRng::new(&mut rng);
        for _ in 0..k {
            lazy[ex.noisy_argmax(&a, active, 3).unwrap()] += 1;
            let mut best = (usize::MAX, i128::MIN);
            for (j, &aj) in a.iter().enumerate() {
                if !active(j) {
                    continue;
                }
                let key = aj + ex.discrete_laplace(3);
                if best.0 == usize::MAX || key > best.1 {
                    best = (j, key);
                }
            }
            full[best.0] += 1;
        }
        assert_eq!(lazy[5] + full[5], 0);
        let chi: f64 = (0..5)
            .map(|j| {
                let (x, y) = (lazy[j] as f64, full[j] as f64);
                (x - y).powi(2) / (x + y)
            })
            .sum();
        assert!(chi < chi_crit(4), "chi2 {chi}: {lazy:?} vs {full:?}");
        // ties go to the first index: index 1 must beat index 3 (same score) clearly
        assert!(lazy[1] > lazy[3] + 1000, "{lazy:?}");
        assert_eq!(ex.noisy_argmax(&a, |_| false, 3), None);
    }

    #[test]
    fn dyadic_floor_rounds_down() {
        for &x in &[0.1f64, 1.0 / 3.0, 7.0, 1e-300, 5e-324, 1e300] {
            let d = Dyadic32::floor_of(x);
            assert!(d.to_f64() <= x);
            assert!(d.to_f64() >= x * (1.0 - 2f64.powi(-31)) || x < 1e-290);
        }
    }

    #[test]
    fn samplers_are_reproducible() {
        let draw = |seed| {
            let mut rng = rng_from_seed(seed);
            (
                discrete_laplace(1 << 50, &mut rng),
                discrete_gaussian(12345, &mut rng),
                discrete_gaussian_rational(7, 3, &mut rng),
                exponential_mechanism(&[1, 2, 3], Dyadic32::floor_of(0.3), &mut rng),
            )
        };
        assert_eq!(draw(21), draw(21));
        assert_ne!(draw(21), draw(22));
    }

    #[test]
    #[ignore = "timing study"]
    fn timing_of_the_samplers() {
        let k = 200_000;
        let mut rng = rng_from_seed(1);
        let mut acc = 0i128;
        let t0 = std::time::Instant::now();
        {
            let mut ex = ExactRng::new(&mut rng);
            for _ in 0..k {
                acc = acc.wrapping_add(ex.discrete_laplace(109_000_000_000_000));
            }
        }
        let lap = t0.elapsed().as_nanos() as f64 / k as f64;
        let t0 = std::time::Instant::now();
        {
            let mut ex = ExactRng::new(&mut rng);
            for _ in 0..k {
                acc = acc.wrapping_add(ex.discrete_gaussian(109_000_000_000_000));
            }
        }
        let gau = t0.elapsed().as_nanos() as f64 / k as f64;
        let t0 = std::time::Instant::now();
        let mut f = 0.0;
        for _ in 0..k {
            f += crate::noise::laplace(1.0, &mut rng);
        }
        let cont = t0.elapsed().as_nanos() as f64 / k as f64;
        println!("ns/draw: discrete laplace {lap:.1}, discrete gaussian {gau:.1}, float laplace {cont:.1} ({acc} {f})");
        struct Counting<R>(R, usize);
        impl<R: RngCore> RngCore for Counting<R> {
            fn next_u32(&mut self) -> u32 {
                self.1 += 4;
                self.0.next_u32()
            }
            fn next_u64(&mut self) -> u64 {
                self.1 += 8;
                self.0.next_u64()
            }
            fn fill_bytes(&mut self, d: &mut [u8]) {
                self.0.fill_bytes(d)
            }
        }
        let mut c = Counting(rng_from_seed(2), 0);
        let mut ex = ExactRng::new(&mut c);
        for _ in 0..k {
            ex.discrete_laplace(109_000_000_000_000);
        }
        println!("bytes per discrete Laplace draw: {}", c.1 as f64 / k as f64);
    }

    #[test]
    fn pinned_draws() {
        // Catch silent changes of the exact samplers (and of the generator).
        let mut rng = rng_from_seed(7);
        let got = (
            discrete_laplace(1000, &mut rng),
            discrete_gaussian(1000, &mut rng),
            discrete_laplace(1 << 90, &mut rng),
            exponential_mechanism(&[0, 1, 2, 3, 4], Dyadic32::floor_of(0.5), &mut rng),
        );
        assert_eq!(got, PINNED_DRAWS, "got {got:?}");
    }
    const PINNED_DRAWS: (i128, i128, i128, usize) =
        (23, 536, 527_158_716_857_446_322_657_550_165, 2);
}
