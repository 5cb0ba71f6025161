//! Calibration of the simulator against a real GPU.
//!
//! This part is the measurement: [`collect`] compiles CUDA C microbenchmarks (inline
//! PTX) with NVRTC for `sm_90a`, runs them through the CUDA driver API (cudarc, loaded
//! at run time), times them with `clock64` inside the kernels (and CUDA events or
//! `%globaltimer` where wall time is needed), and writes one JSON file
//! ([`schema::Measurement`]) with every repetition and the provenance of the run.
//!
//! Without a driver (no libcuda) nothing panics: [`collect`] returns
//! [`CollectError::NoDriver`].

pub mod across;
mod bench;
pub mod datafile;
mod families;
pub mod fit;
mod gpu;
pub mod library;
pub mod loo;
pub mod ncu;
pub mod nvrtc;
pub mod placement;
pub mod report;
pub mod sass;
pub mod schema;
pub mod singe_twin;
pub mod slots_twin;
pub mod sources;
pub mod stream_twin;
/// The STS probe's twins (`data/gaps/stsissue/`), for `examples/stsprobe.rs`.
pub use families::gaps_sts;
pub mod twins;
pub mod validation;
pub mod ws_segments;

pub use schema::{Benchmark, Measurement, Provenance};

use std::fmt;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// What `collect` is asked to do. The default is the protocol the fit's data was taken
/// with ([`FIT_HBM_LAUNCHES`] launches per HBM copy latency, clean flushes), so that a
/// default collect on another GPU measures what the fit reads.
#[derive(Debug, Clone)]
pub struct CollectOptions {
    /// Output file; default `<out_dir>/<gpu>-<UTC date-time>.json`.
    pub out: Option<PathBuf>,
    /// Folder for the default file name; default `crates/calibrate/data`.
    pub out_dir: Option<PathBuf>,
    /// Fewer repetitions and sizes: a smoke test of every kernel in seconds.
    pub quick: bool,
    /// Run only the sections whose name contains one of these (empty: all).
    pub only: Vec<String>,
    /// Where to write the compiled images (cubin / ptx) for disassembly.
    pub dump_dir: Option<PathBuf>,
    /// The command line, recorded in the provenance.
    pub command: Vec<String>,
    /// Launches per HBM copy-latency benchmark (`lat.bulk.hbm.*`, `lat.tma2d.hbm.*`): each
    /// flushes L2 and times the usual repetitions at source addresses no earlier launch read
    /// (0 or 1: one launch, the original protocol; default [`FIT_HBM_LAUNCHES`]).
    pub hbm_launches: u32,
    /// Leave L2 clean after each flush: the flush's writes (a memset of a buffer several
    /// times L2) are followed by a read of that buffer, so no dirty line is still being
    /// written back to HBM while a cold benchmark runs. Without it, copies of 8 KiB and
    /// more issued right after a flush are slowed by that write-back (data/README.md).
    /// On by default.
    pub clean_flush: bool,
    /// Microseconds the host waits after each L2 flush before the next launch (0: none),
    /// to tell what the time since the flush does to copies from HBM.
    pub flush_settle_us: u32,
    /// Run the validation kernels instead of the microbenchmarks (their own file, default
    /// folder `crates/calibrate/data/validation`; never used by the fit).
    pub validation: bool,
}

/// Launches per HBM copy-latency benchmark in the fit's data ([`HBM_COPY_DATA`]:
/// `--hbm-launches 64 --clean-flush`), the default of every collect.
pub const FIT_HBM_LAUNCHES: u32 = 64;

impl Default for CollectOptions {
    fn default() -> Self {
        CollectOptions {
            out: None,
            out_dir: None,
            quick: false,
            only: Vec::new(),
            dump_dir: None,
            command: Vec::new(),
            hbm_launches: FIT_HBM_LAUNCHES,
            clean_flush: true,
            flush_settle_us: 0,
            validation: false,
        }
    }
}

/// Why a collect run (or a part of it) failed.
#[derive(Debug)]
pub enum CollectError {
    /// libcuda could not be loaded: no GPU driver on this machine.
    NoDriver,
    /// libnvrtc could not be loaded.
    NoNvrtc,
    /// The output file exists already; measurements are never overwritten.
    OutputExists(PathBuf),
    Driver(String),
    Nvrtc(String),
    Compile {
        name: String,
        log: String,
    },
    /// A kernel's bounded wait expired (it reports this instead of hanging).
    Timeout(String),
    Io(std::io::Error),
    Json(serde_json::Error),
}

impl fmt::Display for CollectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CollectError::NoDriver => write!(
                f,
                "no CUDA driver: libcuda could not be loaded (this needs a machine with an NVIDIA GPU and its driver)"
            ),
            CollectError::NoNvrtc => write!(
                f,
                "no NVRTC: libnvrtc could not be loaded (install the CUDA toolkit or put libnvrtc.so on LD_LIBRARY_PATH)"
            ),
            CollectError::OutputExists(p) => {
                write!(
                    f,
                    "{} exists; measurements are never overwritten",
                    p.display()
                )
            }
            CollectError::Driver(s) => write!(f, "CUDA driver: {s}"),
            CollectError::Nvrtc(s) => write!(f, "NVRTC: {s}"),
            CollectError::Compile { name, log } => write!(f, "compiling {name} failed:\n{log}"),
            CollectError::Timeout(s) => write!(f, "timeout: {s}"),
            CollectError::Io(e) => write!(f, "I/O: {e}"),
            CollectError::Json(e) => write!(f, "JSON: {e}"),
        }
    }
}

impl std::error::Error for CollectError {}

impl From<std::io::Error> for CollectError {
    fn from(e: std::io::Error) -> Self {
        CollectError::Io(e)
    }
}

impl From<serde_json::Error> for CollectError {
    fn from(e: serde_json::Error) -> Self {
        CollectError::Json(e)
    }
}

/// True when libcuda can be loaded. Must be checked before any other driver call:
/// cudarc panics when the library is absent.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// The driver check with the probe passed in (testable without a GPU).
pub fn check_driver_with(probe: impl Fn() -> bool) -> Result<(), CollectError> {
    if probe() {
        Ok(())
    } else {
        Err(CollectError::NoDriver)
    }
}

/// Errors unless libcuda is present.
pub fn check_driver() -> Result<(), CollectError> {
    check_driver_with(driver_present)
}

/// Creates `path` for writing, failing if it exists (never overwrites a measurement).
/// Missing parent folders are created.
pub fn create_new_file(path: &Path) -> Result<File, CollectError> {
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent)?;
    }
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(f) => Ok(f),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(CollectError::OutputExists(path.to_path_buf()))
        }
        Err(e) => Err(CollectError::Io(e)),
    }
}

/// Writes `text` to `path`, never overwriting, through a temporary renamed when
/// complete (`outfile`): a failure leaves no file, not half of one. Missing parent
/// folders are created.
pub fn write_new(path: &Path, text: &str) -> Result<(), CollectError> {
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent)?;
    }
    outfile::write(path, text.as_bytes(), false).map_err(|e| match e {
        outfile::WriteError::Create(outfile::CreateError::Exists(p)) => {
            CollectError::OutputExists(p)
        }
        outfile::WriteError::Write { error, .. }
            if error.kind() == std::io::ErrorKind::AlreadyExists =>
        {
            CollectError::OutputExists(path.to_path_buf())
        }
        e => CollectError::Io(std::io::Error::other(e.to_string())),
    })
}

/// Seconds since the Unix epoch as (YYYY, MM, DD, hh, mm, ss), UTC.
pub fn utc_parts(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // civil-from-days (Howard Hinnant's algorithm)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        ((rem % 3600) / 60) as u32,
        (rem % 60) as u32,
    )
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// ISO 8601 UTC, e.g. `2026-11-20T10:11:12Z`.
pub fn iso_utc(secs: u64) -> String {
    let (y, mo, d, h, mi, s) = utc_parts(secs);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// A short lowercase tag for a GPU name: "NVIDIA H100 80GB HBM3" -> "h100".
pub fn gpu_tag(name: &str) -> String {
    for w in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let b = w.as_bytes();
        if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1..].iter().all(|c| c.is_ascii_digit()) {
            return w.to_ascii_lowercase();
        }
    }
    "gpu".to_string()
}

/// `dir/<tag>-YYYYMMDDTHHMMSSZ.json`; if that exists, `-2`, `-3`, ... is appended.
pub fn default_out_path(dir: &Path, gpu_name: &str, secs: u64) -> PathBuf {
    let (y, mo, d, h, mi, s) = utc_parts(secs);
    let stem = format!(
        "{}-{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z",
        gpu_tag(gpu_name)
    );
    let mut p = dir.join(format!("{stem}.json"));
    let mut i = 2;
    while p.exists() {
        p = dir.join(format!("{stem}-{i}.json"));
        i += 1;
    }
    p
}

/// Folder of the committed measurements, relative to the workspace root.
pub const DATA_DIR: &str = "crates/calibrate/data";

/// The measurement file the fit uses by default (relative to the workspace root).
pub const PRIMARY_DATA: &str = "crates/calibrate/data/h100-20261123T012202Z.json";
/// Two repeat runs of the whole collect (session 5, 2026-11-23 23:07:37 and 23:08:03 UTC,
/// `--hbm-launches 64 --clean-flush`) whose HBM copy-latency benchmarks (`lat.bulk.hbm.*`,
/// `lat.tma2d.hbm.*`: 64 launches of 16 copies each, 1024 per file) the fit and the report
/// use instead of the primary's 16 copies, their repetitions pooled (2048 copies per
/// benchmark): one copy from HBM takes anywhere from about 640 to 1300 cycles, so a median
/// of 16 moves by up to 27% between runs, and each launch follows an L2 flush whose dirty
/// lines, unless the flush reads them back (`--clean-flush`), are still being written to
/// HBM while the copies run (data/README.md). Same source hashes as the primary.
pub const HBM_COPY_DATA: [&str; 2] = [
    "crates/calibrate/data/h100-20261123T230737Z.json",
    "crates/calibrate/data/h100-20261123T230803Z.json",
];

/// Benchmarks the primary lacks, measured later with the same sources, and the file each
/// comes from: `sched.first_finish` with 3, 5 and 7 warps per sub-partition (session 5,
/// `--only clock.light,sched,sched.odd`), where the warps do not pair up.
pub const ADDED_DATA: [(&str, &[&str]); 1] = [(
    "crates/calibrate/data/h100-20261123T232734Z.json",
    &[
        "sched.first_finish.warps_12",
        "sched.first_finish.warps_20",
        "sched.first_finish.warps_28",
    ],
)];

/// For a fit to the primary file (named `data_file`), where its HBM copy latencies came
/// from instead and which benchmarks were added, for the profile's sources and note; None
/// for any other file.
pub fn pooled_from(data_file: &str) -> Option<String> {
    if data_file != file_name(PRIMARY_DATA) {
        return None;
    }
    let names: Vec<&str> = HBM_COPY_DATA.iter().map(|r| file_name(r)).collect();
    let mut text = format!(
        "lat.bulk.hbm.* and lat.tma2d.hbm.* pooled from {}",
        names.join(" and ")
    );
    for (file, benches) in ADDED_DATA {
        text.push_str(&format!(
            ", {} from {}",
            benches.join(", "),
            file_name(file)
        ));
    }
    Some(text)
}

/// Adds the benchmarks named in `added` from `x` (named `name`) to `m`, which must lack
/// them; each must come from a source with the same hash as the one `m` has by that name.
pub fn add_benchmarks(
    m: &mut Measurement,
    name: &str,
    x: &Measurement,
    added: &[&str],
) -> Result<(), String> {
    for bench in added {
        if m.get(bench).is_some() {
            return Err(format!(
                "{bench} is already in the primary; {name} cannot add it"
            ));
        }
        let b = x
            .get(bench)
            .ok_or_else(|| format!("{name} has no {bench}"))?;
        let hash = |y: &Measurement| {
            y.sources
                .iter()
                .find(|s| s.name == b.source)
                .map(|s| s.hash.clone())
        };
        if hash(m).is_none() || hash(m) != hash(x) {
            return Err(format!(
                "{name}: {bench} comes from another source than the primary's"
            ));
        }
        m.benchmarks.push(b.clone());
    }
    Ok(())
}

/// The last component of a workspace-relative path.
fn file_name(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// The benchmarks taken from [`HBM_COPY_DATA`].
pub fn is_hbm_copy_latency(name: &str) -> bool {
    name.starts_with("lat.bulk.hbm.") || name.starts_with("lat.tma2d.hbm.")
}

/// Replaces the HBM copy-latency benchmarks of `m` by the pooled repetitions of `extra`
/// (every file must hold each of them, from a source with the same hash as `m`'s); returns
/// how many it replaced.
pub fn pool_hbm_copies(
    m: &mut Measurement,
    extra: &[(String, Measurement)],
) -> Result<usize, String> {
    let hash = |x: &Measurement, src: &str| {
        x.sources
            .iter()
            .find(|s| s.name == src)
            .map(|s| s.hash.clone())
    };
    let own: std::collections::HashMap<String, String> = m
        .sources
        .iter()
        .map(|s| (s.name.clone(), s.hash.clone()))
        .collect();
    let mut n = 0;
    for b in m
        .benchmarks
        .iter_mut()
        .filter(|b| is_hbm_copy_latency(&b.name))
    {
        let mut reps = Vec::new();
        let mut from = Vec::new();
        for (name, x) in extra {
            let e = x
                .get(&b.name)
                .ok_or_else(|| format!("{name} has no {}", b.name))?;
            let want = own.get(&b.source);
            if e.source != b.source || want.is_none() || hash(x, &e.source).as_ref() != want {
                return Err(format!(
                    "{name}: {} comes from another source than the primary's",
                    b.name
                ));
            }
            reps.extend(e.reps.iter().copied());
            from.push(format!("{name} ({} copies)", e.reps.len()));
        }
        let median = schema::median(&reps).ok_or_else(|| format!("{}: no repetitions", b.name))?;
        b.median = median;
        b.reps = reps;
        b.method = format!("{}; repetitions pooled from {}", b.method, from.join(", "));
        n += 1;
    }
    Ok(n)
}

/// Reads a measurement file (workspace-relative); the primary comes with its HBM
/// copy latencies pooled from [`HBM_COPY_DATA`] ([`pool_hbm_copies`]) and the benchmarks
/// of [`ADDED_DATA`] added ([`add_benchmarks`]).
pub fn load_data(rel: &str) -> Result<Measurement, String> {
    let read = |r: &str| -> Result<Measurement, String> {
        let path = workspace_path(r);
        let text = datafile::read_text(&path)?;
        let mut m =
            Measurement::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        // the landing SM's L2 distance taken out (`placement`), where the file measured it
        placement::normalize(&mut m, false);
        Ok(m)
    };
    let mut m = read(rel)?;
    if Path::new(rel).file_name() == Path::new(PRIMARY_DATA).file_name() {
        let extra = HBM_COPY_DATA
            .iter()
            .map(|r| read(r).map(|x| (file_name(r).to_string(), x)))
            .collect::<Result<Vec<_>, String>>()?;
        pool_hbm_copies(&mut m, &extra)?;
        for (file, benches) in ADDED_DATA {
            add_benchmarks(&mut m, file_name(file), &read(file)?, benches)?;
        }
    }
    Ok(m)
}

/// The validation measurements the report uses by default (never read by the fit).
pub const VALIDATION_DATA: &str = "crates/calibrate/data/validation/h100-20261127T060007Z.json";
/// Every committed run of the validation kernels the report's rankings read, one per GPU
/// (the same 190 kernels, same sources and SASS: `data/validation/README.md`), each with
/// the `.env.txt` that names its GPU (the default collect made just before it on the same
/// machine): [`VALIDATION_DATA`] first, the run the report scores.
pub const VALIDATION_RUNS: [(&str, &str); 5] = [
    (
        VALIDATION_DATA,
        "crates/calibrate/data/validation/h100-20261127T060007Z.env.txt",
    ),
    (
        "crates/calibrate/data/validation/h100-20261127T104407Z.json",
        "crates/calibrate/data/h100-20261127T104342Z.env.txt",
    ),
    (
        "crates/calibrate/data/validation/h100-20261127T131753Z.json",
        "crates/calibrate/data/h100-20261127T131727Z.env.txt",
    ),
    (
        "crates/calibrate/data/validation/h100-20261127T160427Z.json",
        "crates/calibrate/data/h100-20261127T160353Z.env.txt",
    ),
    (
        "crates/calibrate/data/validation/h100-20261127T185634Z.json",
        "crates/calibrate/data/h100-20261127T185607Z.env.txt",
    ),
];
/// Nsight Compute warp-state ratios of the validation kernels.
pub const VALIDATION_NCU: &str = "crates/calibrate/data/validation/h100-20261122T210256Z.ncu.csv";
/// Where the committed report lives.
pub const REPORT_DIR: &str = "crates/calibrate/report";
/// The fit's starting point: the published priors of the h100 profile.
pub const H100_PRIORS: &str = include_str!("../priors/h100.toml");

/// The built-in profile `fit --write-builtin` rewrites.
pub const BUILTIN_PROFILE: &str = "crates/sim-core/profiles/h100.toml";

/// A workspace-relative path: as given when it exists from the current folder, else
/// resolved against the workspace this crate was built in.
pub fn workspace_path(rel: &str) -> PathBuf {
    // (a committed collect may be stored gzipped: `datafile::resolve` finds either)
    let p = PathBuf::from(rel);
    if p.is_absolute() || datafile::resolve(&p).exists() {
        return p;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let q = root.join(rel);
    if datafile::resolve(&q).exists() { q } else { p }
}

/// The NVRTC target for a compute capability: sm_90 -> "sm_90a".
pub fn arch_for(cc: (i32, i32)) -> String {
    format!("sm_{}{}a", cc.0, cc.1)
}

/// (source name, source text, the compiled image or why it failed)
pub type CompileResult = (String, String, Result<nvrtc::Compiled, CollectError>);

/// Compiles every source for `arch` (needs libnvrtc only, no GPU). Images are written to
/// `dump_dir` as `<name>.cubin` (or `.ptx`) when given.
pub fn compile_all(
    arch: &str,
    dump_dir: Option<&Path>,
) -> Result<Vec<CompileResult>, CollectError> {
    let mut all = sources::for_arch(arch);
    if !sources::is_blackwell(arch) {
        all.extend(sources::validation());
    }
    compile_sources(all, arch, dump_dir)
}

/// Compiles the given (name, text) sources for `arch`; see [`compile_all`].
pub fn compile_sources(
    list: Vec<(&str, String)>,
    arch: &str,
    dump_dir: Option<&Path>,
) -> Result<Vec<CompileResult>, CollectError> {
    if !nvrtc::nvrtc_present() {
        return Err(CollectError::NoNvrtc);
    }
    let mut out = Vec::new();
    for (name, text) in list {
        let t0 = std::time::Instant::now();
        let res = nvrtc::compile(name, &text, arch);
        eprintln!(
            "[calibrate] compiled {name} for {arch} in {:.1} s: {}",
            t0.elapsed().as_secs_f64(),
            match &res {
                Ok(c) => format!("{} bytes of {}", c.image.len(), c.kind),
                Err(e) => format!("FAILED {e}"),
            }
        );
        if let (Some(dir), Ok(c)) = (dump_dir, &res) {
            std::fs::create_dir_all(dir)?;
            let ext = if c.kind == "cubin" { "cubin" } else { "ptx" };
            std::fs::write(dir.join(format!("{name}.{ext}")), &c.image)?;
            if !c.log.is_empty() {
                std::fs::write(dir.join(format!("{name}.log")), &c.log)?;
            }
        }
        out.push((name.to_string(), text, res));
    }
    Ok(out)
}

/// The folder `smsim calibrate collect` writes into without `--out`: the current folder
/// `cwd`, unless it lies inside `source_tree` (the checkout the program was built from),
/// where a collect would land in the repository (and, under `crates/calibrate/data`,
/// change the committed fit and report): then the system's temporary folder. A collect
/// joins the committed data only when moved there on purpose (with its `.env.txt`).
pub fn default_collect_dir(cwd: &Path, source_tree: Option<&Path>) -> PathBuf {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let here = abs(cwd);
    if source_tree.is_some_and(|t| here.starts_with(abs(t))) {
        std::env::temp_dir()
    } else {
        here
    }
}

/// Runs every microbenchmark on GPU 0 and writes the measurement file; returns its path.
pub fn collect(opts: &CollectOptions) -> Result<PathBuf, CollectError> {
    check_driver()?;
    if !nvrtc::nvrtc_present() {
        return Err(CollectError::NoNvrtc);
    }
    if let Some(p) = &opts.out
        && p.exists()
    {
        return Err(CollectError::OutputExists(p.clone()));
    }
    let started = now_secs();
    let m = bench::run(opts, iso_utc(started))?;
    let path = match &opts.out {
        Some(p) => p.clone(),
        None => {
            let dir = opts.out_dir.clone().unwrap_or_else(|| {
                let d = PathBuf::from(DATA_DIR);
                if opts.validation {
                    d.join("validation")
                } else {
                    d
                }
            });
            default_out_path(&dir, &m.provenance.gpu_name, started)
        }
    };
    write_new(&path, &m.to_json()?)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso_utc(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(iso_utc(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    #[test]
    fn a_collect_goes_outside_the_source_tree() {
        let tree = std::env::temp_dir().join(format!("smsim-tree-{}", std::process::id()));
        let inside = tree.join("crates/calibrate/data");
        let outside = tree.with_extension("elsewhere");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        // inside the checkout, anywhere in it: the temporary folder
        assert_eq!(
            default_collect_dir(&inside, Some(&tree)),
            std::env::temp_dir()
        );
        assert_eq!(
            default_collect_dir(&tree, Some(&tree)),
            std::env::temp_dir()
        );
        // elsewhere: where the user is
        let o = std::fs::canonicalize(&outside).unwrap();
        assert_eq!(default_collect_dir(&outside, Some(&tree)), o);
        assert_eq!(default_collect_dir(&outside, None), o);
        std::fs::remove_dir_all(&tree).unwrap();
        std::fs::remove_dir_all(&outside).unwrap();
    }

    #[test]
    fn gpu_tags() {
        assert_eq!(gpu_tag("NVIDIA H100 80GB HBM3"), "h100");
        assert_eq!(gpu_tag("NVIDIA B200"), "b200");
        assert_eq!(gpu_tag("Some GPU"), "gpu");
    }

    #[test]
    fn arch_names() {
        assert_eq!(arch_for((9, 0)), "sm_90a");
        assert_eq!(arch_for((10, 0)), "sm_100a");
    }
}
