//! The integration tests of this crate, one test binary (one link of the library and its
//! dependencies instead of one per file). Every `tests/*.rs` file is a module here;
//! `layers::every_test_file_is_a_module` fails when one is missing. Run one file's tests
//! with `cargo test -p heavydp --test integration FILE::`.

mod audit;
mod billion;
mod budget_spent;
mod chunk_ids;
mod experiments;
mod frank_wolfe_accuracy;
mod fuzz;
mod heavy_tailed_accuracy;
mod io_formats;
mod layers;
mod mirror_descent;
mod objective_perturbation;
mod pipeline;
mod precision_attack;
mod real_benchmark;
mod registry;
