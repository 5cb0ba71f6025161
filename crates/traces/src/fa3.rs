//! fa3-forward (seed 002): placeholder until written.
use crate::{Family, Params};
pub const FAMILY: Family = Family {
    name: "fa3-forward",
    description: "FlashAttention-3 forward, d=128, B_r=B_c=128 (seed 002)",
    profile: "h100",
    schedules: &[],
    params: &[],
    build,
};
pub fn build(schedule: &str, _p: &Params) -> Result<isa::Kernel, String> {
    Err(format!("fa3-forward has no schedule `{schedule}`"))
}
