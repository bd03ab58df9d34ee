//! The algorithm registry: one [`AlgorithmDescriptor`] per CONTRACT name (the type is in
//! `entry.rs`), exported by the algorithm's own file, and the one slice [`REGISTRY`] that
//! holds them.
//!
//! Everything that depends on an algorithm's name reads its descriptor: [`build`],
//! [`catalogue`], [`default_loss_and_domain`], the distributed and chunked lists (the
//! pipeline's `DISTRIBUTED_ALGORITHMS`, the Python package's `heavydp.spark`), the
//! scaled-data `auto` rules of the pipeline and the `heavydp algorithms` listing.
//! Adding an algorithm is its own files, one line of `with_algorithm_registry!` (which
//! also declares its module and generates its audit test), its audit row and its
//! budget-test arm (`docs/adding-an-algorithm.md`); `tests/registry.rs` fails when a
//! registered algorithm lacks one of its parts.

use super::{adaptive_huber, adassp, frank_wolfe, iht, l1_expmech, mirror_descent};
use super::{objective_perturbation, private_gd};
use super::{AlgorithmDescriptor, AlgorithmInfo, FitError, ParamMap, PrivateAlgorithm};

/// The registry list, the one place that names every algorithm: calls the macro
/// `$callback` with one line per algorithm, in the order of `heavydp algorithms`:
///
/// ```text
/// test_name => [mod] module::path::DESCRIPTOR,
/// ```
///
/// `test_name` is the algorithm's name with `_` for `-` and names the tests generated
/// per algorithm (its statistical audit in `tests/audit.rs`, which fails on another
/// name); `mod` marks the line that declares the module (the path's first
/// segment, a file or folder under `algorithms/`; once per module, on its first line).
/// Its three readers: `algorithms/mod.rs` declares the modules, this file builds
/// [`REGISTRY`], `tests/audit.rs` generates the audit tests.
#[doc(hidden)]
#[macro_export]
macro_rules! with_algorithm_registry {
    ($callback:ident) => {
        $callback! {
            frank_wolfe => mod frank_wolfe::FRANK_WOLFE,
            dp_frank_wolfe => frank_wolfe::DP_FRANK_WOLFE,
            dp_frank_wolfe_gaussian => frank_wolfe::DP_FRANK_WOLFE_GAUSSIAN,
            noisy_mirror_descent => mod mirror_descent::DESCRIPTOR,
            objective_perturbation => mod objective_perturbation::DESCRIPTOR,
            ht_frank_wolfe => frank_wolfe::heavy_tailed::DESCRIPTOR,
            ht_lasso => frank_wolfe::lasso::DESCRIPTOR,
            ht_sparse_linreg => mod iht::truncated::DESCRIPTOR,
            ht_sparse_opt => iht::robust::DESCRIPTOR,
            dp_iht_huber => iht::huber::DESCRIPTOR,
            dp_iht_l1 => iht::absolute::DESCRIPTOR,
            dp_slr => iht::least_squares::DESCRIPTOR,
            adahuber => mod adaptive_huber::DESCRIPTOR,
            l1_regression_expmech => mod l1_expmech::DESCRIPTOR,
            clipped_gd => mod private_gd::CLIPPED_GD,
            iterative_updating_gd => private_gd::ITERATIVE_UPDATING_GD,
            adassp => mod adassp::DESCRIPTOR,
        }
    };
}

/// Builds [`REGISTRY`] from the lines of `with_algorithm_registry!`.
macro_rules! registry_slice {
    (@ [$($acc:tt)*]) => {
        /// Every implemented algorithm, in the order of `heavydp algorithms` (the list
        /// of `with_algorithm_registry!`).
        pub const REGISTRY: &[&AlgorithmDescriptor] = &[$($acc)*];
    };
    (@ [$($acc:tt)*] $test:ident => mod $($path:ident)::+, $($rest:tt)*) => {
        registry_slice!(@ [$($acc)* &$($path)::+,] $($rest)*);
    };
    (@ [$($acc:tt)*] $test:ident => $($path:ident)::+, $($rest:tt)*) => {
        registry_slice!(@ [$($acc)* &$($path)::+,] $($rest)*);
    };
    ($($lines:tt)*) => {
        registry_slice!(@ [] $($lines)*);
    };
}

crate::with_algorithm_registry!(registry_slice);

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
    }
}
