//! WORK IN PROGRESS (being implemented in this session).
use super::*;

/// objective-perturbation (in progress).
#[derive(Debug, Clone)]
pub struct ObjectivePerturbation;

impl ObjectivePerturbation {
    pub fn from_params(params: &ParamMap) -> Result<Self, FitError> {
        Params::new("objective-perturbation", params, &[])?;
        Ok(ObjectivePerturbation)
    }
    pub fn info() -> AlgorithmInfo {
        AlgorithmInfo { name: "objective-perturbation", paper: "", privacy: "approx", losses: vec![], domains: vec![], parameters: vec![] }
    }
}

impl PrivateAlgorithm for ObjectivePerturbation {
    fn name(&self) -> &'static str { "objective-perturbation" }
    fn privacy_model(&self) -> PrivacyModel { PrivacyModel::Approx }
    fn validate(&self, _problem: &Problem, _budget: &Budget) -> Result<(), FitError> {
        Err(FitError::Unsupported { algorithm: "objective-perturbation", reason: "not yet implemented".into() })
    }
    fn fit(&self, problem: &Problem, budget: Budget, _rng: &mut dyn RngCore, _observer: &mut dyn Observer) -> Result<FitReport, FitError> {
        self.validate(problem, &budget)?;
        unreachable!()
    }
}
