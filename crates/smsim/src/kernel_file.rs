//! Reading a kernel file: read, parse, apply `--param` overrides, validate. Every
//! subcommand that takes a kernel goes through [`load`].

use std::path::Path;

use isa::{Diagnostic, Kernel};

pub struct Loaded {
    /// The path as the user gave it, for messages.
    pub path: String,
    /// The file's text, for subcommands that quote it.
    #[allow(dead_code)]
    pub source: String,
    pub kernel: Kernel,
}

pub enum LoadError {
    /// The file could not be read.
    Io(String),
    /// A parse error, or the validator's errors (at least one).
    Invalid {
        path: String,
        source: String,
        diags: Vec<Diagnostic>,
    },
    /// A `--param` override names no parameter of the kernel.
    Param(String),
}

impl LoadError {
    /// The message for a terminal: diagnostics rendered with the source line and a caret.
    pub fn render(&self) -> String {
        match self {
            LoadError::Io(m) | LoadError::Param(m) => format!("error: {m}\n"),
            LoadError::Invalid {
                path,
                source,
                diags,
            } => {
                let mut out = String::new();
                for d in diags {
                    out.push_str(&d.render(path, source));
                    out.push('\n');
                }
                let n = diags.len();
                out.push_str(&format!(
                    "{path}: {n} error{}\n",
                    if n == 1 { "" } else { "s" }
                ));
                out
            }
        }
    }

    /// The same as JSON, for `--json`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            LoadError::Io(m) | LoadError::Param(m) => {
                serde_json::json!({ "ok": false, "errors": [{ "message": m }] })
            }
            LoadError::Invalid {
                path,
                source,
                diags,
            } => {
                let errors: Vec<serde_json::Value> = diags
                    .iter()
                    .map(|d| {
                        serde_json::json!({
                            "file": path,
                            "line": d.line,
                            "col": d.col,
                            "message": d.message,
                            "help": d.help,
                            "rendered": d.render(path, source),
                        })
                    })
                    .collect();
                serde_json::json!({ "ok": false, "errors": errors })
            }
        }
    }
}

/// `K=V` for `--param`.
pub fn parse_param(s: &str) -> Result<(String, i64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let k = k.trim();
    if k.is_empty() {
        return Err(format!("`{s}` has no parameter name"));
    }
    let v = v.trim();
    let value = match v.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => v.parse::<i64>(),
    }
    .map_err(|_| format!("`{v}` is not an integer (in `{s}`)"))?;
    Ok((k.to_string(), value))
}

/// Reads, parses, overrides parameters and validates.
pub fn load(path: &Path, params: &[(String, i64)]) -> Result<Loaded, LoadError> {
    let shown = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| {
        LoadError::Io(match e.kind() {
            std::io::ErrorKind::NotFound => format!("{shown}: no such file"),
            std::io::ErrorKind::InvalidData => format!("{shown}: not a UTF-8 text file"),
            _ => format!("{shown}: cannot read: {e}"),
        })
    })?;
    let mut kernel = match isa::parse_kernel(&source) {
        Ok(k) => k,
        Err(d) => {
            return Err(LoadError::Invalid {
                path: shown,
                source,
                diags: vec![d],
            });
        }
    };
    kernel
        .set_params(params)
        .map_err(|m| LoadError::Param(format!("--param: {m}")))?;
    let diags = isa::validate(&kernel);
    if !diags.is_empty() {
        return Err(LoadError::Invalid {
            path: shown,
            source,
            diags,
        });
    }
    Ok(Loaded {
        path: shown,
        source,
        kernel,
    })
}
