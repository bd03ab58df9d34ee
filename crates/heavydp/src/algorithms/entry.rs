//! An algorithm's registry entry, [`AlgorithmDescriptor`]: a constant in the algorithm's
//! own file, listed once in [`super::registry::REGISTRY`]. This file holds only the type
//! (algorithm files import it; the registry imports the algorithm files).

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

/// Where an algorithm comes from: the row of the paper → algorithm map (README,
/// `docs/papers.md`, the crate docs), which `tests/registry.rs` generates from the
/// registry. Not part of `heavydp algorithms --json` (its `paper` field is the
/// documentation row's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Citation {
    /// The authors as the maps print them ("Talwar, Thakurta & Zhang").
    pub authors: &'static str,
    /// The paper's title, Markdown ("*Private ERM beyond the worst case*"); empty for a
    /// paper cited by its authors only. Rows of one paper follow each other in
    /// [`super::REGISTRY`] where possible: the README prints the title on the first.
    pub title: &'static str,
    /// The paper's item ("Alg. 3", "Alg. 1 + App. A", "baseline of Tian et al. §6").
    pub item: &'static str,
    /// What the algorithm is, in a few words (Markdown).
    pub summary: &'static str,
    /// Its Rust type, relative to `heavydp::algorithms` ("frank_wolfe::FrankWolfe"); the
    /// crate docs link it, so `cargo doc` fails on a wrong path.
    pub rust: &'static str,
    /// The section of `spec/` it implements ("talwar §7, A1"), or why there is none.
    pub spec: &'static str,
}

impl Citation {
    /// A citation that says nothing: the default of [`AlgorithmDescriptor::new`], refused
    /// by the registry test until [`AlgorithmDescriptor::cited`] replaces it.
    pub const NONE: Citation = Citation {
        authors: "",
        title: "",
        item: "",
        summary: "",
        rust: "",
        spec: "",
    };
    /// True when every part but the (optional) title is given.
    pub fn is_complete(&self) -> bool {
        [self.authors, self.item, self.summary, self.rust, self.spec]
            .iter()
            .all(|s| !s.trim().is_empty())
    }
}

/// The builder of an algorithm from its `--param` values (keys the documentation row
/// does not list are refused).
pub type BuildFn = fn(&ParamMap) -> Result<Box<dyn PrivateAlgorithm>, FitError>;

/// Everything the crate knows about an algorithm by its name: one constant in the
/// algorithm's own file, one line of [`super::REGISTRY`].
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
    /// Fits the intercept jointly with the weights (`--param intercept=fit`), which
    /// `pipeline` sets for the logistic loss with a private intercept.
    pub joint_logistic_intercept: bool,
    /// Its paper and place in the paper → algorithm map.
    pub citation: Citation,
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
            joint_logistic_intercept: false,
            citation: Citation::NONE,
        }
    }
    /// Its paper and place in the paper → algorithm map (every registered algorithm has
    /// one: `tests/registry.rs`).
    pub const fn cited(mut self, citation: Citation) -> Self {
        self.citation = citation;
        self
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
    /// Fits a logistic intercept jointly with the weights (`intercept=fit`).
    pub const fn with_joint_logistic_intercept(mut self) -> Self {
        self.joint_logistic_intercept = true;
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
            .field("citation", &self.citation)
            .finish_non_exhaustive()
    }
}

/// Boxes a built algorithm: the body of every descriptor's `build`.
pub fn boxed<A: PrivateAlgorithm + 'static>(
    built: Result<A, FitError>,
) -> Result<Box<dyn PrivateAlgorithm>, FitError> {
    Ok(Box::new(built?))
}
