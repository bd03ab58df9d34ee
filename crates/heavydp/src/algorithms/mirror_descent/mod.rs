//! WORK IN PROGRESS (being implemented in this session).
use super::*;

/// noisy-mirror-descent (in progress).
#[derive(Debug, Clone)]
pub struct NoisyMirrorDescent;

impl NoisyMirrorDescent {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        Params::new("noisy-mirror-descent", params, &[])?;
        Ok(NoisyMirrorDescent)
    }
    pub fn info() -> AlgorithmInfo {
        AlgorithmInfo { name: "noisy-mirror-descent", paper: "", privacy: "approx", losses: vec![], domains: vec![], parameters: vec![] }
    }
}

impl PrivateAlgorithm for NoisyMirrorDescent {
    fn name(&self) -> &'static str { "noisy-mirror-descent" }
    fn privacy_model(&self) -> PrivacyModel { PrivacyModel::Approx }
    fn validate(&self, _problem: &Problem, _budget: &Budget) -> Result<(), FitError> {
        Err(FitError::Unsupported { algorithm: "noisy-mirror-descent", reason: "not yet implemented".into() })
    }
    fn fit(&self, problem: &Problem, budget: Budget, _rng: &mut dyn RngCore, _observer: &mut dyn Observer) -> Result<FitReport, FitError> {
        self.validate(problem, &budget)?;
        unreachable!()
    }
}
