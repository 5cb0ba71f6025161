//! `calibrate report`: simulated against measured.

use std::path::Path;

use sim_core::Profile;

use crate::schema::Measurement;

pub fn run(_m: &Measurement, _name: &str, _p: &Profile, _dir: &Path, _check: bool) -> Result<String, String> {
    Err("not yet".into())
}
