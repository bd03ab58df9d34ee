//! Parameter plumbing shared by the algorithms and the mean estimators: the raw
//! `--param KEY=VALUE` map, typed access that rejects unknown keys and malformed values,
//! the documentation rows of `heavydp algorithms --json` / `heavydp mean --list`, the
//! error of construction, validation and fitting, and small helpers of the defaults.
//!
//! It sits below [`crate::algorithms`] and [`crate::estimators`] (both use it; the
//! algorithms re-export it, so `crate::algorithms::FitError` and friends keep their
//! paths), so that the estimators never import from the algorithms above them.

use crate::constraints::DomainError;
use crate::data::DataError;
use crate::loss::LossError;
use crate::mechanisms::PeelingCalibration;
use crate::privacy::{Budget, PrivacyError};
use serde::Serialize;
use std::collections::BTreeMap;
use thiserror::Error;

/// The words of an enumerated `--param` value type, as one table beside the enum:
/// `param_words!(Chunking: "shuffle" => Shuffle, "order" => Order)` gives `Chunking` the
/// (word, variant) table `WORDS` (in this order; the first is the default of
/// [`Params::pick`]) and `name()`, the word of a value (through [`word_of`]). The parser
/// (`p.pick(key, T::WORDS)`) and the name written in reports are then one table and
/// cannot disagree. The enum must be `Copy + PartialEq`.
///
/// With the key, `param_words!(Chunking = "chunking": "shuffle" => Shuffle, …)` also gives
/// `KEY` and `parse(p)`, which reads `--param chunking=…` (absent: the first word): the
/// parameter's name stands beside its words once.
macro_rules! param_words {
    ($name:ident = $key:literal: $($words:tt)+) => {
        param_words!($name: $($words)+);
        impl $name {
            /// The `--param` key of this value type.
            pub const KEY: &'static str = $key;

            #[doc = concat!("Reads `--param ", $key, "=…` (absent: the first of [`Self::WORDS`]).")]
            pub fn parse(
                p: &$crate::params::Params,
            ) -> Result<Self, $crate::params::FitError> {
                p.pick(Self::KEY, Self::WORDS)
            }
        }
    };
    ($name:ident: $($word:literal => $variant:ident),+ $(,)?) => {
        impl $name {
            /// The `--param` words of the values (the first is the default of
            /// [`Params::pick`](crate::params::Params::pick)).
            pub const WORDS: &'static [(&'static str, $name)] = &[$(($word, $name::$variant)),+];

            /// The `--param` word of this value.
            pub fn name(self) -> &'static str {
                $crate::params::word_of(Self::WORDS, self)
            }
        }
    };
}
pub(crate) use param_words;

/// Errors of algorithm construction, validation and fitting. Messages depend only on
/// names, shapes, flags and public parameters — never on data values.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FitError {
    #[error("unknown algorithm '{0}' (run `heavydp algorithms` for the list)")]
    UnknownAlgorithm(String),
    #[error("{algorithm}: unknown parameter '{param}' (accepted: {accepted})")]
    UnknownParameter {
        algorithm: &'static str,
        param: String,
        accepted: String,
    },
    #[error("{algorithm}: parameter {param}: {reason}")]
    BadParameter {
        algorithm: &'static str,
        param: String,
        reason: String,
    },
    #[error("{algorithm}: {reason}")]
    Unsupported {
        algorithm: &'static str,
        reason: String,
    },
    #[error("{algorithm} assumes bounded data: give the public bound with --param bound=B (features and target are clipped to [-B, B]; the bound is never read from the data)")]
    BoundRequired { algorithm: &'static str },
    #[error("{algorithm}: n = {n} records is too few for {needed} disjoint data chunks")]
    TooFewRecords {
        algorithm: &'static str,
        n: usize,
        needed: usize,
    },
    #[error(transparent)]
    Privacy(#[from] PrivacyError),
    #[error(transparent)]
    Loss(#[from] LossError),
    #[error(transparent)]
    Domain(#[from] DomainError),
    #[error(transparent)]
    Data(#[from] DataError),
}

/// The names of the parameters that many algorithms share, written once: the
/// documentation row (`ParamInfo::name`), the read (`p.integer(key::T, 1)`), the
/// accepted keys (derived from the documentation row) and the hyperparameter record
/// (`hp(&mut h, key::T, t)`) all use the constant.
pub mod key {
    /// The number of iterations T.
    pub const T: &str = "T";
    /// The rule that calibrates an algorithm's noise to its budget.
    pub const CALIBRATION: &str = "calibration";
}

/// A parameter's documentation for `heavydp algorithms --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamInfo {
    pub name: &'static str,
    pub default: &'static str,
    pub meaning: &'static str,
    pub source: &'static str,
}

/// An algorithm's row in `heavydp algorithms`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlgorithmInfo {
    pub name: &'static str,
    pub paper: &'static str,
    /// A short public description of the data and task the algorithm suits
    /// (the "use when" column of `heavydp algorithms`).
    pub use_when: &'static str,
    pub privacy: &'static str,
    pub losses: Vec<&'static str>,
    pub domains: Vec<&'static str>,
    pub parameters: Vec<ParamInfo>,
}

impl AlgorithmInfo {
    /// The row of the parameter `name`, if the algorithm has one.
    pub fn param(&self, name: &str) -> Option<&ParamInfo> {
        self.parameters.iter().find(|p| p.name == name)
    }
}

/// Raw `--param KEY=VALUE` pairs.
pub type ParamMap = BTreeMap<String, String>;

/// The [`ParamMap`] of (key, value) pairs, as `--param key=value` would give them (a
/// later pair replaces an earlier one with the same key).
pub fn param_map(pairs: &[(&str, &str)]) -> ParamMap {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Typed access to a [`ParamMap`] that rejects unknown keys and malformed values.
pub struct Params<'a> {
    algorithm: &'static str,
    map: &'a ParamMap,
}

impl<'a> Params<'a> {
    /// Checks that every key is in `accepted`.
    pub fn new(
        algorithm: &'static str,
        map: &'a ParamMap,
        accepted: &[&str],
    ) -> Result<Self, FitError> {
        for k in map.keys() {
            if !accepted.contains(&k.as_str()) {
                return Err(FitError::UnknownParameter {
                    algorithm,
                    param: k.clone(),
                    accepted: if accepted.is_empty() {
                        "none".into()
                    } else {
                        accepted.join(", ")
                    },
                });
            }
        }
        Ok(Params { algorithm, map })
    }

    fn bad(&self, key: &str, reason: impl Into<String>) -> FitError {
        FitError::BadParameter {
            algorithm: self.algorithm,
            param: key.to_string(),
            reason: reason.into(),
        }
    }

    /// A positive finite number.
    pub fn positive(&self, key: &str) -> Result<Option<f64>, FitError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 => Ok(Some(x)),
                _ => Err(self.bad(key, format!("expected a number > 0, got '{v}'"))),
            },
        }
    }

    /// A non-negative finite number.
    pub fn non_negative(&self, key: &str) -> Result<Option<f64>, FitError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
                _ => Err(self.bad(key, format!("expected a number >= 0, got '{v}'"))),
            },
        }
    }

    /// An integer ≥ `min`.
    pub fn integer(&self, key: &str, min: usize) -> Result<Option<usize>, FitError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(v) => match v.parse::<usize>() {
                Ok(x) if x >= min => Ok(Some(x)),
                _ => Err(self.bad(key, format!("expected an integer >= {min}, got '{v}'"))),
            },
        }
    }

    /// One of a fixed set of words.
    pub fn choice(
        &self,
        key: &str,
        options: &[&'static str],
    ) -> Result<Option<&'static str>, FitError> {
        match self.map.get(key) {
            None => Ok(None),
            Some(v) => options
                .iter()
                .find(|o| **o == v.as_str())
                .copied()
                .map(Some)
                .ok_or_else(|| {
                    self.bad(
                        key,
                        format!("expected one of {}, got '{v}'", options.join(", ")),
                    )
                }),
        }
    }

    /// The value of the enumerated parameter `key`: `options` pairs each accepted word
    /// with its value, the first being the default (key absent); any other word is the
    /// error of [`Params::choice`], which lists the words in this order.
    pub fn pick<T: Copy>(&self, key: &str, options: &[(&'static str, T)]) -> Result<T, FitError> {
        self.pick_or(key, options, options[0].1)
    }

    /// [`Params::pick`] with the value `default` when `key` is absent.
    pub fn pick_or<T: Copy>(
        &self,
        key: &str,
        options: &[(&'static str, T)],
        default: T,
    ) -> Result<T, FitError> {
        let words: Vec<&'static str> = options.iter().map(|o| o.0).collect();
        Ok(match self.choice(key, &words)? {
            None => default,
            Some(w) => options[words.iter().position(|o| *o == w).expect("a listed word")].1,
        })
    }

    /// The raw string value.
    pub fn string(&self, key: &str) -> Option<&'a str> {
        self.map.get(key).map(|s| s.as_str())
    }
}

/// The word of `value` in the (word, value) table of an enumerated parameter: with
/// [`Params::pick`] on the same table, the parser and the name written in reports are
/// one table and cannot disagree.
///
/// # Panics
/// If `value` has no word (a table that misses a variant).
pub fn word_of<T: PartialEq>(words: &[(&'static str, T)], value: T) -> &'static str {
    words
        .iter()
        .find(|(_, v)| *v == value)
        .map(|(w, _)| *w)
        .expect("every value of an enumerated parameter has a word")
}

/// Helper for algorithms' hyperparameter maps.
pub fn hp(
    map: &mut BTreeMap<String, serde_json::Value>,
    key: &str,
    v: impl Into<serde_json::Value>,
) {
    map.insert(key.to_string(), v.into());
}

/// The ε used in default-parameter formulas: the budget's ε, or 1 when ε = ∞, so that a
/// non-private run is the same iteration (same T, scales, steps) as an ε = 1 run with
/// the noise removed.
pub fn formula_epsilon(budget: &Budget) -> f64 {
    if budget.is_non_private() {
        1.0
    } else {
        budget.epsilon
    }
}

/// The default δ = n^{−1.1} of the Hu et al. (ε, δ) algorithms (spec Hu X.2, "when not
/// given"), applied when the budget's δ is 0. A public function of n.
pub fn with_default_delta(budget: Budget, n: usize) -> Budget {
    if budget.is_non_private() || budget.delta > 0.0 {
        budget
    } else {
        Budget {
            epsilon: budget.epsilon,
            delta: (n.max(2) as f64).powf(-1.1),
        }
    }
}

/// Reads `fail_prob` (ζ, the utility theorems' failure probability; default 0.05).
pub fn fail_prob_param(algorithm: &'static str, p: &Params) -> Result<f64, FitError> {
    match p.positive("fail_prob")? {
        Some(z) if z >= 1.0 => Err(FitError::BadParameter {
            algorithm,
            param: "fail_prob".into(),
            reason: format!("expected a probability in (0, 1), got {z}"),
        }),
        Some(z) => Ok(z),
        None => Ok(0.05),
    }
}

/// The `calibration` parameter of the Peeling-based algorithms and estimators (the
/// mechanism itself, in [`crate::mechanisms`], knows nothing of `--param`).
impl PeelingCalibration {
    /// The `--param calibration` words (the first is the default).
    pub const WORDS: &'static [(&'static str, PeelingCalibration)] = &[
        ("exact", PeelingCalibration::Exact),
        ("paper", PeelingCalibration::Paper),
    ];
    /// Parses `--param calibration=exact|paper` (default `exact`).
    pub fn parse(p: &Params) -> Result<Self, FitError> {
        p.pick(key::CALIBRATION, Self::WORDS)
    }
    /// The `calibration` row of a Peeling-based algorithm's parameter table.
    pub fn param_info() -> ParamInfo {
        ParamInfo {
            name: key::CALIBRATION,
            default: Self::WORDS[0].0,
            meaning: "Peeling's Laplace scale: exact = smallest scale whose composition (best of basic, advanced, zCDP) certifies the budget; paper = printed 2 lambda sqrt(3 s ln(1/delta))/eps (certifies less, and that is what is charged)",
            source: "Hu Alg. 4 / Cai et al. Lemma 3.3; docs/privacy.md (exact calibration)",
        }
    }
}

/// The `suffstats` parameter: whether a squared-loss fit computes its
/// full mean gradients from the sufficient statistics G = X̃ᵀX̃/n and c = X̃ᵀỹ/n of the
/// clipped data ([`crate::linalg::SecondMoments`], one O(nd²) pass, then O(d²) or O(d)
/// per gradient) or by a pass over the data per gradient. The gradient is the same
/// function of the data either way (2(Gw − c) = (2/n)Σ x̃_i(⟨x̃_i, w⟩ − ỹ_i)), so the
/// choice changes only the floating-point summation order, never the privacy analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SuffStats {
    /// [`SuffStats::auto_rule`].
    #[default]
    Auto,
    /// Always the sufficient statistics (squared loss only; other losses ignore it).
    On,
    /// Always the data passes.
    Off,
}
param_words!(SuffStats = "suffstats": "auto" => Auto, "on" => On, "off" => Off);

impl SuffStats {
    /// The `auto` rule, from public quantities only (n, d and the number of full gradients
    /// `gradients` when it is fixed in advance): the statistics are used when
    /// 8d ≤ n — G (d² floats) is then at most 1/8 of the data (n·d floats), which keeps a
    /// fit's memory near the data's size — and, when the number of gradients is known,
    /// 2·gradients ≥ d: building G costs about n·d²/2 multiply-adds, a data pass 2·n·d,
    /// so G pays for itself after d/4 gradients; the factor 2 covers the Gram kernel being
    /// compute-bound where the passes stream at memory speed.
    pub fn auto_rule(n: usize, d: usize, gradients: Option<usize>) -> bool {
        8 * d <= n && gradients.is_none_or(|t| 2 * t >= d)
    }

    /// Whether a fit with this setting uses the statistics: only for the squared loss;
    /// `on`/`off` force the choice, `auto` applies [`SuffStats::auto_rule`].
    pub fn resolve(self, squared: bool, n: usize, d: usize, gradients: Option<usize>) -> bool {
        squared
            && match self {
                SuffStats::On => true,
                SuffStats::Off => false,
                SuffStats::Auto => Self::auto_rule(n, d, gradients),
            }
    }

    /// The `suffstats` row of an algorithm's parameter table.
    pub fn param_info() -> ParamInfo {
        ParamInfo {
            name: "suffstats",
            default: "auto",
            meaning: "squared loss: compute the full mean gradients from the Gram matrix X'X/n and X'y/n of the clipped data (one O(n d^2) pass, then O(d^2) or O(d) per gradient) instead of a data pass per gradient; same gradient up to floating-point summation order, same privacy analysis; auto = on when 8d <= n and (if the number of gradients T is fixed) 2T >= d; on / off force it",
            source: "project design; docs/performance.md (Sufficient statistics)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pick`: the first option when the key is absent, the named one otherwise, and for
    /// another word the error of `choice` listing the words in the options' order.
    #[test]
    fn pick_reads_an_enumerated_parameter() {
        let options = [
            ("auto", SuffStats::Auto),
            ("on", SuffStats::On),
            ("off", SuffStats::Off),
        ];
        let map = ParamMap::new();
        let p = Params::new("t", &map, &["suffstats"]).unwrap();
        assert_eq!(p.pick("suffstats", &options).unwrap(), SuffStats::Auto);
        for (word, value) in options {
            let map: ParamMap = [("suffstats".to_string(), word.to_string())].into();
            let p = Params::new("t", &map, &["suffstats"]).unwrap();
            assert_eq!(p.pick("suffstats", &options).unwrap(), value);
        }
        let map: ParamMap = [("suffstats".to_string(), "maybe".to_string())].into();
        let p = Params::new("t", &map, &["suffstats"]).unwrap();
        let e = p.pick("suffstats", &options).unwrap_err().to_string();
        assert!(
            e.contains("expected one of auto, on, off, got 'maybe'"),
            "{e}"
        );
    }
}
