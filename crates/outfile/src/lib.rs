//! Output files written so that a failure loses nothing: the bytes go to a temporary
//! file beside the destination, which takes the destination's name only once it is
//! complete. A failure leaves the old file (or none) and removes the temporary; an
//! existing file is replaced only where the caller says so (a `--force`).
//!
//! The binary's traces and profiles, the sweeps' tables and charts and the calibration's
//! measurements and reports all write through here.
//!
//! ```
//! let dir = std::env::temp_dir().join(format!("outfile-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let p = dir.join("out.txt");
//! outfile::write(&p, b"first", false).unwrap();
//! // An existing file is not replaced without `overwrite`...
//! assert!(outfile::write(&p, b"second", false).is_err());
//! assert_eq!(std::fs::read(&p).unwrap(), b"first");
//! // ...and is with it.
//! outfile::write(&p, b"second", true).unwrap();
//! assert_eq!(std::fs::read(&p).unwrap(), b"second");
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

#![warn(missing_docs)]

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why an output cannot be started: said before any work is done.
#[derive(Debug)]
pub enum CreateError {
    /// The destination exists and may not be replaced.
    Exists(PathBuf),
    /// The path names no file (`/`, `..`).
    NotAFile(PathBuf),
    /// Its directory does not exist.
    NoDirectory {
        /// The destination.
        path: PathBuf,
        /// Its directory, as the user would name it.
        dir: String,
    },
    /// Its directory does not take a new file (read-only, no permission...).
    Io {
        /// The destination.
        path: PathBuf,
        /// Its directory, as the user would name it.
        dir: String,
        /// What the system said.
        error: io::Error,
    },
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::Exists(p) => write!(
                f,
                "{} exists; smsim does not overwrite files (choose another path)",
                p.display()
            ),
            CreateError::NotAFile(p) => write!(f, "{} is not a file name", p.display()),
            CreateError::NoDirectory { path, dir } => {
                write!(f, "cannot write {}: no directory {dir}", path.display())
            }
            CreateError::Io { path, dir, error } => {
                write!(f, "cannot write {} (in {dir}): {error}", path.display())
            }
        }
    }
}

impl std::error::Error for CreateError {}

/// Temporaries made by this process so far: two outputs started at once (a chart's PNG
/// and SVG) get different names.
static MADE: AtomicU64 = AtomicU64::new(0);

/// A file being written under a temporary name; [`Pending::commit`] publishes it, and
/// dropping it uncommitted removes the temporary.
#[derive(Debug)]
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
    /// Starts writing `path`: refused when it exists and `overwrite` is false, or when
    /// its directory does not take a new file, before any work is done. The temporary
    /// (`.smsim-PID-N.NAME` beside it) keeps the destination's extension, for writers
    /// that choose a format by it.
    pub fn create(path: &Path, overwrite: bool) -> Result<(Pending, File), CreateError> {
        if !overwrite && path.exists() {
            return Err(CreateError::Exists(path.to_path_buf()));
        }
        let name = path
            .file_name()
            .ok_or_else(|| CreateError::NotAFile(path.to_path_buf()))?;
        let tmp = path.with_file_name(format!(
            ".smsim-{}-{}.{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed),
            name.to_string_lossy()
        ));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|error| {
                let dir = match path.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d.display().to_string(),
                    _ => ".".to_string(),
                };
                let path = path.to_path_buf();
                match error.kind() {
                    io::ErrorKind::NotFound => CreateError::NoDirectory { path, dir },
                    _ => CreateError::Io { path, dir, error },
                }
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

    /// The temporary, for writers that open a path themselves (chart backends): they
    /// write it whole before [`Pending::commit`].
    pub fn temporary(&self) -> &Path {
        &self.tmp
    }

    /// Gives the finished temporary the destination's name: atomically replacing an old
    /// file where `overwrite` allows, else only where none has appeared meanwhile (a
    /// hard link fails on an existing name, where a rename would replace it). The
    /// temporary's bytes are synced to disk first, so a crash leaves the old file or the
    /// new one, never half of one.
    pub fn commit(mut self) -> io::Result<()> {
        File::open(&self.tmp)?.sync_all()?;
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

/// Why [`write()`] wrote nothing.
#[derive(Debug)]
pub enum WriteError {
    /// The output could not be started (nothing was done).
    Create(CreateError),
    /// Writing or publishing it failed: the old file, if any, is left as it was.
    Write {
        /// The destination.
        path: PathBuf,
        /// What the system said.
        error: io::Error,
        /// Whether a file was there before (and still is, unchanged).
        existed: bool,
    },
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Create(e) => e.fmt(f),
            WriteError::Write {
                path,
                error,
                existed,
            } => write!(
                f,
                "writing {}: {error}; {}",
                path.display(),
                if *existed {
                    "the old file is left as it was"
                } else {
                    "nothing was written"
                }
            ),
        }
    }
}

impl std::error::Error for WriteError {}

/// For callers whose errors are text (the sweeps, the calibration's report).
impl From<WriteError> for String {
    fn from(e: WriteError) -> String {
        e.to_string()
    }
}

/// Writes `bytes` to `path` through a temporary (see [`Pending`]), replacing an
/// existing file only where `overwrite` allows.
pub fn write(path: &Path, bytes: &[u8], overwrite: bool) -> Result<(), WriteError> {
    let existed = path.exists();
    let (pending, mut file) = Pending::create(path, overwrite).map_err(WriteError::Create)?;
    let written = io::Write::write_all(&mut file, bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| pending.commit());
    written.map_err(|error| WriteError::Write {
        path: path.to_path_buf(),
        error,
        existed,
    })
}

/// Writes a file that a writer creates by its path (a chart backend): `draw` is given
/// the temporary's path and must write it whole; the result then takes `path`'s name,
/// replacing an existing file only where `overwrite` allows. A failure of `draw` leaves
/// nothing behind and is returned as it was.
pub fn write_with<E: From<WriteError>>(
    path: &Path,
    overwrite: bool,
    draw: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    let existed = path.exists();
    let (pending, file) = Pending::create(path, overwrite).map_err(WriteError::Create)?;
    drop(file);
    draw(pending.temporary())?;
    pending.commit().map_err(|error| {
        WriteError::Write {
            path: path.to_path_buf(),
            error,
            existed,
        }
        .into()
    })
}

#[cfg(test)]
mod tests;
