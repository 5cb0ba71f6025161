//! What the subcommands take from the command line: profiles with their `--set`
//! overrides, and kernels (files or built-in `family/schedule`) with their `--param`
//! overrides. Each refusal is a [`Fail`] of the right kind: a name or value the command
//! line got wrong is a usage error, a kernel that cannot be read or built a failure.

use std::path::Path;

use sim_core::Profile;

use crate::kernel_file::{self, LoadError};
use crate::outcome::Fail;

/// `NAME=VALUE` for `--set`: a profile parameter and a number.
pub fn parse_set(s: &str) -> Result<(String, f64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let v: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("`{v}` is not a number (in `{s}`)"))?;
    Ok((k.trim().to_string(), v))
}

/// A built-in profile by name, or a TOML file, with `set`'s overrides applied.
pub fn load_profile(name: &str, set: &[(String, f64)]) -> Result<Profile, Fail> {
    load_profile_text(name, set).map_err(Fail::Usage)
}

fn load_profile_text(name: &str, set: &[(String, f64)]) -> Result<Profile, String> {
    let mut p = if Profile::builtin_names().any(|n| n.eq_ignore_ascii_case(name)) {
        Profile::builtin(name).map_err(|e| e.to_string())?
    } else if Path::new(name).exists() {
        let text =
            std::fs::read_to_string(name).map_err(|e| format!("{name}: cannot read: {e}"))?;
        Profile::from_toml(&text).map_err(|e| format!("{name}: {e}"))?
    } else {
        let names: Vec<&str> = Profile::builtin_names().collect();
        return Err(format!(
            "no built-in profile or file `{name}` (built in: {})",
            names.join(", ")
        ));
    };
    for (k, v) in set {
        p.set(k, *v).map_err(|e| format!("--set {k}={v}: {e}"))?;
    }
    Ok(p)
}

/// Whether `name` names a kernel file rather than a built-in kernel.
fn is_file(name: &str) -> bool {
    Path::new(name).exists() || name.ends_with(".smk")
}

/// A kernel file, or a built-in kernel of the library, with `params` applied.
pub fn load_kernel(name: &str, params: &[(String, i64)]) -> Result<isa::Kernel, Fail> {
    if is_file(name) {
        return kernel_file::load(Path::new(name), params)
            .map(|l| l.kernel)
            .map_err(|e| match e {
                LoadError::Param(m) => Fail::Usage(m),
                e => Fail::Rendered(e.render()),
            });
    }
    if let Some((family, _)) = name.split_once('/')
        && let Ok(f) = traces::family(family)
    {
        // A parameter the family does not declare is the command line's mistake.
        traces::resolve_params(f, params).map_err(|m| Fail::Usage(format!("--param: {m}")))?;
        return traces::builtin_with(name, params).map_err(Fail::Failed);
    }
    Err(Fail::Failed(format!(
        "`{name}` is neither a kernel file nor a built-in kernel (family/schedule); see `smsim kernels`"
    )))
}

/// The profile `run` uses when none is named: a built-in kernel's family's own (a
/// Blackwell kernel needs the B200's tensor memory), else the H100's.
pub fn default_profile(kernel: &str) -> &'static str {
    match kernel.split_once('/') {
        Some((family, _)) if !is_file(kernel) => {
            traces::family(family).map_or("h100", |f| f.profile)
        }
        _ => "h100",
    }
}
