//! A warp state explained: what it means, what causes it, what fixes it.

use sim_core::WarpState;

/// The state's name, then its meaning, causes and fixes on lines of their own (the text
/// `smsim explain REASON` prints).
pub fn text(s: WarpState) -> String {
    let e = s.explain();
    format!(
        "{}\n  means:  {}\n  causes: {}\n  fixes:  {}\n",
        s.name(),
        e.means,
        e.causes,
        e.fixes
    )
}
