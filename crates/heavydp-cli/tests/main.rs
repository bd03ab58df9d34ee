//! The integration tests of this crate, one test binary (one link of the library and its
//! dependencies instead of one per file). Every `tests/*.rs` file is a module here;
//! the heavydp crate's `layers::every_test_file_is_a_module` fails when one is missing. Run one file's tests
//! with `cargo test -p heavydp-cli --test cli_integration FILE::`.

mod audit;
mod bad_input;
mod cli;
mod common;
mod experiment;
mod formats;
mod guide;
mod mean_and_gd;
mod neighbours;
mod released_files;
mod ux;
