//! The algorithm registry: one [`AlgorithmDescriptor`] per CONTRACT name, exported by
//! the algorithm's own file, and the one slice [`REGISTRY`] that holds them.
//!
//! Everything that used to be a table keyed by name reads the descriptor: [`build`],
//! [`catalogue`], [`default_loss_and_domain`], the distributed and chunked lists (the
//! pipeline's `DISTRIBUTED_ALGORITHMS`, the Python package's `heavydp.spark`), the
//! scaled-data `auto` rules of the pipeline and the `heavydp algorithms` listing.
//! Adding an algorithm is its own files, one line of [`REGISTRY`], its audit row and
//! its budget-test arm (`docs/adding-an-algorithm.md`); `tests/registry.rs` fails when a
//! registered algorithm lacks one of its parts.

use super::{adaptive_huber, adassp, frank_wolfe, iht, l1_expmech, mirror_descent};
use super::{objective_perturbation, private_gd};
use super::{AlgorithmInfo, FitError, ParamMap, Params, PrivateAlgorithm};

/// What `--radius auto` (and a missing `--radius`) is on scaled data
/// (`pipeline::auto_radius` documents the measurements behind each rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoRadius {
    /// Radius 1: the ball scales the algorithm's noise, so a larger one costs accuracy.
    One,
    /// Radius √d: the ball is only the projection (the noise is set elsewhere).
    SqrtD,
}

/// An algorithm's defaults on privately or publicly scaled columns (the `auto` rules of
/// `pipeline`, listed as `scaled_defaults` by `heavydp algorithms --json`). `K=auto`,
/// `tau=auto` and `M=auto` are the same rule for every algorithm that has the parameter
/// (its unit-scale default), so they have no field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScaledDefaults {
    /// `--radius auto`.
    pub radius: AutoRadius,
    /// `bound=auto` and a missing `bound` become `preprocess::AUTO_BOUND` robust standard
    /// deviations (for an algorithm whose parameters include `bound`); false: the bound
    /// must be declared.
    pub bound: bool,
    /// `R=auto`, and neither `R` nor `M` given, set the data-free gradient clip
    /// `pipeline::auto_gradient_radius` (2·L·√d).
    pub gradient_radius: bool,
}

/// The builder of an algorithm from its `--param` values (keys the documentation row
/// does not list are refused).
pub type BuildFn = fn(&ParamMap) -> Result<Box<dyn PrivateAlgorithm>, FitError>;

/// Everything the crate knows about an algorithm by its name: one constant in the
/// algorithm's own file, one line of [`REGISTRY`].
#[derive(Clone, Copy)]
pub struct AlgorithmDescriptor {
    /// The CONTRACT name (`--algorithm`).
    pub name: &'static str,
    /// The documentation row (`heavydp algorithms`): paper, privacy model, losses,
    /// domains and the parameters, whose names are the accepted `--param` keys.
    pub info: fn() -> AlgorithmInfo,
    /// Builds the algorithm from `--param` values.
    pub build: BuildFn,
    /// The loss used when `--loss` is not given.
    pub default_loss: &'static str,
    /// The domain used when `--domain` is not given.
    pub default_domain: &'static str,
    /// Implements `PrivateAlgorithm::fit_with_sums` (its data passes are row sums), so
    /// it runs distributed (`pipeline::fit_external`, `heavydp.spark`).
    pub distributed: bool,
    /// Reads T disjoint data chunks: a distributed fit needs `chunking=keyed`.
    pub chunked: bool,
    /// `PrivateAlgorithm::reads_mapped_features` (checked against the built algorithm by
    /// the registry test).
    pub reads_mapped_features: bool,
    /// Its defaults on scaled columns.
    pub scaled: ScaledDefaults,
    /// Has confidence intervals (`--intervals`, `crate::inference`).
    pub intervals: bool,
}

impl AlgorithmDescriptor {
    /// A descriptor with the common capabilities: not distributed, not chunked, reads
    /// the features through the map, radius 1 and `bound=auto` on scaled data, no
    /// gradient-clip rule, no intervals. The `with_*` and `without_*` methods change one.
    pub const fn new(
        name: &'static str,
        info: fn() -> AlgorithmInfo,
        build: BuildFn,
        (default_loss, default_domain): (&'static str, &'static str),
    ) -> Self {
        AlgorithmDescriptor {
            name,
            info,
            build,
            default_loss,
            default_domain,
            distributed: false,
            chunked: false,
            reads_mapped_features: true,
            scaled: ScaledDefaults {
                radius: AutoRadius::One,
                bound: true,
                gradient_radius: false,
            },
            intervals: false,
        }
    }
    /// Runs distributed (its data passes are row sums).
    pub const fn distributed(mut self) -> Self {
        self.distributed = true;
        self
    }
    /// Reads T disjoint chunks (a distributed fit needs `chunking=keyed`).
    pub const fn chunked(mut self) -> Self {
        self.chunked = true;
        self
    }
    /// Needs the standardised features materialised.
    pub const fn materialised(mut self) -> Self {
        self.reads_mapped_features = false;
        self
    }
    /// `--radius auto` = √d on scaled data.
    pub const fn radius_sqrt_d(mut self) -> Self {
        self.scaled.radius = AutoRadius::SqrtD;
        self
    }
    /// The data-free gradient clip `R` on scaled data.
    pub const fn gradient_radius(mut self) -> Self {
        self.scaled.gradient_radius = true;
        self
    }
    /// `bound` must be declared, also on scaled data.
    pub const fn declared_bound(mut self) -> Self {
        self.scaled.bound = false;
        self
    }
    /// Has confidence intervals.
    pub const fn with_intervals(mut self) -> Self {
        self.intervals = true;
        self
    }

    /// The accepted `--param` keys: the names of the documentation row's parameters.
    pub fn accepted_keys(&self) -> Vec<&'static str> {
        (self.info)().parameters.iter().map(|p| p.name).collect()
    }

    /// [`Self::accepted_keys`] without `taken`: the documented parameters of the loss
    /// (`tau` of `--loss huber`), which the pipeline takes before the algorithm is built.
    pub fn accepted_keys_but(&self, taken: &[&str]) -> Vec<&'static str> {
        let mut keys = self.accepted_keys();
        keys.retain(|k| !taken.contains(k));
        keys
    }

    /// Typed access to `map`, refusing any key that is not an accepted one.
    pub fn params<'a>(&self, map: &'a ParamMap) -> Result<Params<'a>, FitError> {
        Params::new(self.name, map, &self.accepted_keys())
    }

    /// [`Self::params`] that also accepts the undocumented `aliases` of documented keys
    /// (`theta` for `moment` in `l1-regression-expmech`).
    pub fn params_with_aliases<'a>(
        &self,
        map: &'a ParamMap,
        aliases: &[&str],
    ) -> Result<Params<'a>, FitError> {
        let mut keys: Vec<&str> = self.accepted_keys();
        keys.extend_from_slice(aliases);
        Params::new(self.name, map, &keys)
    }

    /// True when `bound=auto` and a missing `bound` mean `preprocess::AUTO_BOUND` on
    /// scaled data: the algorithm has a `bound` parameter whose scaled default is auto.
    pub fn auto_bound(&self) -> bool {
        self.scaled.bound && (self.info)().param("bound").is_some()
    }
}

impl std::fmt::Debug for AlgorithmDescriptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlgorithmDescriptor")
            .field("name", &self.name)
            .field("default_loss", &self.default_loss)
            .field("default_domain", &self.default_domain)
            .field("distributed", &self.distributed)
            .field("chunked", &self.chunked)
            .field("reads_mapped_features", &self.reads_mapped_features)
            .field("scaled", &self.scaled)
            .field("intervals", &self.intervals)
            .finish_non_exhaustive()
    }
}

/// Boxes a built algorithm: the body of every descriptor's `build`.
pub fn boxed<A: PrivateAlgorithm + 'static>(
    built: Result<A, FitError>,
) -> Result<Box<dyn PrivateAlgorithm>, FitError> {
    Ok(Box::new(built?))
}

/// Every implemented algorithm, in the order of `heavydp algorithms`.
pub const REGISTRY: &[&AlgorithmDescriptor] = &[
    &frank_wolfe::FRANK_WOLFE,
    &frank_wolfe::DP_FRANK_WOLFE,
    &frank_wolfe::DP_FRANK_WOLFE_GAUSSIAN,
    &mirror_descent::DESCRIPTOR,
    &objective_perturbation::DESCRIPTOR,
    &frank_wolfe::heavy_tailed::DESCRIPTOR,
    &frank_wolfe::lasso::DESCRIPTOR,
    &iht::truncated::DESCRIPTOR,
    &iht::robust::DESCRIPTOR,
    &iht::huber::DESCRIPTOR,
    &iht::absolute::DESCRIPTOR,
    &iht::least_squares::DESCRIPTOR,
    &adaptive_huber::DESCRIPTOR,
    &l1_expmech::DESCRIPTOR,
    &private_gd::CLIPPED_GD,
    &private_gd::ITERATIVE_UPDATING_GD,
    &adassp::DESCRIPTOR,
];

/// The descriptor of the algorithm `name` (`None`: no such algorithm; `auto` and
/// `intercept-only` are choices of the pipeline, not algorithms).
pub fn descriptor(name: &str) -> Option<&'static AlgorithmDescriptor> {
    REGISTRY.iter().copied().find(|a| a.name == name)
}

/// The registry: builds an algorithm from its CONTRACT name and `--param` values.
pub fn build(name: &str, params: &ParamMap) -> Result<Box<dyn PrivateAlgorithm>, FitError> {
    match descriptor(name) {
        Some(a) => (a.build)(params),
        None => Err(FitError::UnknownAlgorithm(name.to_string())),
    }
}

/// Every implemented algorithm's documentation row.
pub fn catalogue() -> Vec<AlgorithmInfo> {
    REGISTRY.iter().map(|a| (a.info)()).collect()
}

/// The default loss and domain of an algorithm (used when `--loss` / `--domain` are not
/// given); `("squared", "l1-ball")` for a name the registry does not hold.
pub fn default_loss_and_domain(name: &str) -> (&'static str, &'static str) {
    descriptor(name).map_or(("squared", "l1-ball"), |a| {
        (a.default_loss, a.default_domain)
    })
}

/// The algorithms that run distributed, in registry order.
pub fn distributed_names() -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|a| a.distributed)
        .map(|a| a.name)
        .collect()
}

/// The distributed algorithms that read disjoint chunks (`chunking=keyed` on Spark).
pub fn chunked_names() -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|a| a.distributed && a.chunked)
        .map(|a| a.name)
        .collect()
}

/// The error of `PrivateAlgorithm::fit_with_sums` for an algorithm without a row-sum
/// implementation.
pub fn not_distributed(algorithm: &'static str) -> FitError {
    let names = distributed_names();
    let list = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(", "),
    };
    FitError::Unsupported {
        algorithm,
        reason: format!(
            "has no row-sum (distributed) implementation; distributed fits support {list}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::param_map;

    /// Parameters with which every registered algorithm builds: its required ones only.
    fn minimal_params(a: &AlgorithmDescriptor) -> ParamMap {
        let info = (a.info)();
        let mut pairs = Vec::new();
        for p in &info.parameters {
            if p.default.starts_with("required") {
                pairs.push((p.name, "1"));
            }
        }
        param_map(&pairs)
    }

    #[test]
    fn names_are_unique_and_each_descriptor_is_its_documentation_row() {
        for (i, a) in REGISTRY.iter().enumerate() {
            let info = (a.info)();
            assert_eq!(info.name, a.name);
            assert!(
                REGISTRY[..i].iter().all(|b| b.name != a.name),
                "{} registered twice",
                a.name
            );
            assert!(
                info.losses.contains(&a.default_loss),
                "{}: default loss {} is not one of its losses {:?}",
                a.name,
                a.default_loss,
                info.losses
            );
            assert!(
                info.domains.contains(&a.default_domain),
                "{}: default domain {} is not one of its domains {:?}",
                a.name,
                a.default_domain,
                info.domains
            );
            assert!(!a.name.is_empty() && a.name != "auto" && a.name != "intercept-only");
        }
        assert_eq!(catalogue().len(), REGISTRY.len());
    }

    #[test]
    fn the_accepted_keys_are_the_documented_parameters() {
        for a in REGISTRY {
            // dp-iht-huber documents `tau`, the parameter of its loss (taken by the pipeline)
            let taken: &[&str] = if a.name == "dp-iht-huber" {
                &["tau"]
            } else {
                &[]
            };
            let mut documented = a.accepted_keys_but(taken);
            if a.name == "l1-regression-expmech" {
                documented.push("theta"); // an alias of `moment`
            }
            documented.sort_unstable();
            match build(a.name, &param_map(&[("no-such-key", "1")])) {
                Err(FitError::UnknownParameter { accepted, .. }) => {
                    let mut accepted: Vec<&str> = accepted.split(", ").collect();
                    accepted.sort_unstable();
                    assert_eq!(accepted, documented, "{}", a.name);
                }
                Err(e) => panic!("{}: {e}", a.name),
                Ok(_) => panic!("{}: an unknown key was accepted", a.name),
            }
        }
    }

    #[test]
    fn every_descriptor_builds_the_algorithm_it_describes() {
        for a in REGISTRY {
            let alg =
                build(a.name, &minimal_params(a)).unwrap_or_else(|e| panic!("{}: {e}", a.name));
            assert_eq!(alg.name(), a.name);
            assert_eq!(
                alg.privacy_model().as_str(),
                (a.info)().privacy,
                "{}",
                a.name
            );
            assert_eq!(
                alg.reads_mapped_features(),
                a.reads_mapped_features,
                "{}",
                a.name
            );
        }
        assert!(matches!(
            build("no-such-algorithm", &ParamMap::new()),
            Err(FitError::UnknownAlgorithm(_))
        ));
    }

    #[test]
    fn capabilities_are_consistent_with_the_parameters() {
        for a in REGISTRY {
            let info = (a.info)();
            if a.chunked {
                assert!(a.distributed, "{}: chunked but not distributed", a.name);
                assert!(
                    info.param("chunking").is_some(),
                    "{}: chunked without a chunking parameter",
                    a.name
                );
            }
            if a.scaled.gradient_radius {
                assert!(info.param("R").is_some(), "{}", a.name);
            }
            if a.auto_bound() {
                assert!(info.param("bound").is_some(), "{}", a.name);
            }
        }
        assert_eq!(
            distributed_names(),
            ["ht-frank-wolfe", "dp-iht-huber", "clipped-gd"]
        );
        assert_eq!(chunked_names(), ["ht-frank-wolfe", "dp-iht-huber"]);
        let FitError::Unsupported { reason, .. } = not_distributed("adassp") else {
            panic!()
        };
        assert!(reason.ends_with("ht-frank-wolfe, dp-iht-huber and clipped-gd"));
    }
}
