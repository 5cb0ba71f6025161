//! Output files written so that a failure loses nothing: the bytes go to a temporary
//! file beside the destination, which takes the destination's name only once it is
//! complete. A failure leaves the old file (or none) and removes the temporary.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use crate::outcome::Fail;

/// A file being written under a temporary name; [`Pending::commit`] publishes it, and
/// dropping it uncommitted removes the temporary.
pub struct Pending {
    /// The destination.
    path: PathBuf,
    /// The temporary beside it.
    tmp: PathBuf,
    /// Whether an existing destination may be replaced.
    overwrite: bool,
    /// Set once the temporary has the destination's name (nothing left to remove).
    done: bool,
}

impl Pending {
    /// Starts writing `path`: refused (a usage error) when it exists and `overwrite` is
    /// false, or when its directory does not take a new file (it does not exist, or is
    /// not writable), before any work is done.
    pub fn create(path: &Path, overwrite: bool) -> Result<(Pending, File), Fail> {
        if !overwrite && path.exists() {
            return Err(Fail::Usage(format!(
                "{} exists; smsim does not overwrite files (choose another path)",
                path.display()
            )));
        }
        let name = path
            .file_name()
            .ok_or_else(|| Fail::Usage(format!("{} is not a file name", path.display())))?;
        let tmp = path.with_file_name(format!(
            ".{}.smsim-{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| {
                let dir = match path.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d.display().to_string(),
                    _ => ".".to_string(),
                };
                Fail::Usage(match e.kind() {
                    io::ErrorKind::NotFound => {
                        format!("cannot write {}: no directory {dir}", path.display())
                    }
                    _ => format!("cannot write {} (in {dir}): {e}", path.display()),
                })
            })?;
        Ok((
            Pending {
                path: path.to_path_buf(),
                tmp,
                overwrite,
                done: false,
            },
            file,
        ))
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Gives the finished temporary the destination's name: atomically replacing an old
    /// file where `overwrite` allows, else only where none has appeared meanwhile (a
    /// hard link fails on an existing name, where a rename would replace it).
    pub fn commit(mut self) -> io::Result<()> {
        if self.overwrite {
            std::fs::rename(&self.tmp, &self.path)?;
        } else {
            match std::fs::hard_link(&self.tmp, &self.path) {
                Ok(()) => {
                    std::fs::remove_file(&self.tmp).ok();
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
                // A file system without hard links: the rename, after a last look.
                Err(_) if !self.path.exists() => std::fs::rename(&self.tmp, &self.path)?,
                Err(e) => return Err(e),
            }
        }
        self.done = true;
        Ok(())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.done {
            std::fs::remove_file(&self.tmp).ok();
        }
    }
}

/// Writes `bytes` to `path` through a temporary (see [`Pending`]); the error says
/// what is left.
pub fn write(path: &Path, bytes: &[u8], overwrite: bool) -> Result<(), Fail> {
    let (pending, mut file) = Pending::create(path, overwrite)?;
    let written = io::Write::write_all(&mut file, bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| pending.commit());
    written.map_err(|e| {
        Fail::Failed(format!(
            "writing {}: {e}; {}",
            path.display(),
            if overwrite && path.exists() {
                "the old file is left as it was"
            } else {
                "nothing was written"
            }
        ))
    })
}
