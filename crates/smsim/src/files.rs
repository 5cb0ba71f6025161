//! Output files written so that a failure loses nothing, through the shared `outfile`
//! crate (a temporary beside the destination, renamed when complete), with its errors
//! as the binary's exit statuses: a path that cannot be started is a usage error (2),
//! a write that fails is a failure (1) that says what is left.

use std::path::Path;

pub use outfile::Pending;

use crate::outcome::Fail;

/// A destination that cannot be started (it exists, its directory does not take a
/// file) is the command line's mistake: said before any work.
impl From<outfile::CreateError> for Fail {
    fn from(e: outfile::CreateError) -> Fail {
        Fail::Usage(e.to_string())
    }
}

/// Writes `bytes` to `path` through a temporary (see [`Pending`]); the error says
/// what is left.
pub fn write(path: &Path, bytes: &[u8], overwrite: bool) -> Result<(), Fail> {
    outfile::write(path, bytes, overwrite).map_err(|e| match e {
        outfile::WriteError::Create(c) => c.into(),
        e => Fail::Failed(e.to_string()),
    })
}
