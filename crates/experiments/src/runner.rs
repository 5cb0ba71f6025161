//! Running a plan's points in parallel and streaming their rows to the results file:
//! resumable (only missing points run), refusing a file from another spec, leaving a
//! valid file when stopped, and sorted into spec order when it closes, so the file is
//! the same byte for byte whatever the number of jobs or interruptions.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use sim_core::RunConfig;
use sim_core::result::RunResult;

use crate::metrics::{self, Cell, point_profile};
use crate::plan::{Plan, Point};
use crate::table::{self, Format};

/// How a sweep runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Worker threads (0: one per core).
    pub jobs: usize,
    /// Run only the `i`-th of `n` slices (`i` from 0).
    pub shard: Option<(usize, usize)>,
    /// Start the file afresh even if it exists.
    pub force: bool,
    /// Set (by a Ctrl-C handler) to stop starting points; those running finish.
    pub stop: Option<Arc<AtomicBool>>,
    /// Stop after this many points of this run (tests use it to interrupt a sweep).
    pub stop_after: Option<usize>,
}

/// What a sweep tells its caller as it goes (a progress bar; nothing in tests).
pub trait Progress: Sync {
    /// The sweep starts: `total` points in this shard, `done` of them already in the file.
    fn start(&self, _total: usize, _done: usize) {}
    /// A point finished (`error` if it failed).
    fn point(&self, _label: &str, _error: Option<&str>) {}
    /// The file is closed.
    fn finish(&self) {}
}

/// No progress shown.
pub struct Quiet;
impl Progress for Quiet {}

/// How a sweep ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Points in this shard.
    pub total: usize,
    /// Points already in the file when the run started.
    pub resumed: usize,
    /// Points run now.
    pub ran: usize,
    /// Points run now that failed (their rows carry the error).
    pub failed: usize,
    /// Stopped before every point ran (the file is valid; rerun to finish).
    pub interrupted: bool,
}

/// A point's runs, one per seed; a panic in the engine is caught and reported as the
/// point's error, so one point cannot end the sweep.
pub fn run_point(plan: &Plan, p: &Point) -> Result<Vec<RunResult>, String> {
    let kernel = p.built.clone()?;
    let profile = point_profile(plan, p)?;
    let runs = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        plan.seeds
            .iter()
            .map(|&seed| {
                let cfg = RunConfig {
                    seed,
                    policy: p.policy,
                    max_cycles: plan.max_cycles,
                    fast_forward: true,
                    max_ctas: plan.max_ctas,
                    warm_l2: plan.warm_l2.clone(),
                };
                sim_core::run(&kernel, &profile, &cfg).map_err(|e| format!("seed {seed}: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()
    }));
    match runs {
        Ok(r) => r,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("internal error (the simulator panicked): {msg}"))
        }
    }
}

/// A point's row, run now.
pub fn point_row(plan: &Plan, p: &Point) -> Vec<Cell> {
    metrics::row(plan, p, &run_point(plan, p))
}

/// Runs points in parallel on `jobs` threads; rows in the order given.
pub fn run_rows(plan: &Plan, indices: &[usize], jobs: usize) -> Result<Vec<Vec<Cell>>, String> {
    pool(jobs)?.install(|| {
        Ok(indices
            .par_iter()
            .map(|&i| point_row(plan, &plan.points[i]))
            .collect())
    })
}

fn pool(jobs: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| format!("cannot start {jobs} worker threads: {e}"))
}

/// Opens the output for appending after checking what it holds: the points already
/// there (resume), or a fresh file with its header. Fails before any point runs if the
/// path cannot be written or holds another spec's rows.
fn open_output(
    plan: &Plan,
    out: &Path,
    fmt: Format,
    force: bool,
) -> Result<(std::fs::File, BTreeSet<usize>), String> {
    let shown = out.display();
    let mut done = BTreeSet::new();
    let exists = out.exists();
    if exists && !force {
        let raw = table::read_raw(out, fmt)?;
        if let Some(h) = &raw.header
            && h != &plan.columns
        {
            return Err(format!(
                "{shown} holds results with other columns: the spec changed since it was \
                 written. Use another --out, or --force to start it afresh"
            ));
        }
        for (point, spec, _) in &raw.rows {
            if spec != &plan.id || raw.points != Some(plan.points.len()) {
                return Err(format!(
                    "{shown} holds results of another spec (fingerprint {spec}, this one \
                     {}): the spec, a kernel or a profile changed since it was written. \
                     Use another --out, or --force to start it afresh",
                    plan.id
                ));
            }
            done.insert(*point);
        }
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(out)
            .map_err(|e| format!("{shown}: cannot write: {e}"))?;
        // A row cut short by a kill is dropped; its point runs again.
        f.set_len(raw.valid_len)
            .map_err(|e| format!("{shown}: cannot write: {e}"))?;
        drop(f);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(out)
            .map_err(|e| format!("{shown}: cannot write: {e}"))?;
        if fmt == Format::Csv && raw.header.is_none() {
            f.write_all(table::csv_header(&plan.columns).as_bytes())
                .map_err(|e| format!("{shown}: cannot write: {e}"))?;
        }
        return Ok((f, done));
    }
    let mut f = std::fs::File::create(out).map_err(|e| format!("{shown}: cannot write: {e}"))?;
    if fmt == Format::Csv {
        f.write_all(table::csv_header(&plan.columns).as_bytes())
            .map_err(|e| format!("{shown}: cannot write: {e}"))?;
    }
    Ok((f, done))
}

/// Runs a plan into `out` (see the module's documentation).
pub fn run_sweep(
    plan: &Plan,
    out: &Path,
    opts: &Options,
    progress: &dyn Progress,
) -> Result<Outcome, String> {
    let fmt = Format::of(out)?;
    if let Some((i, n)) = opts.shard
        && (n == 0 || i >= n)
    {
        return Err(format!("--shard {i}/{n}: the index runs from 0 to N-1"));
    }
    let pool = pool(opts.jobs)?;
    let (file, done) = open_output(plan, out, fmt, opts.force)?;
    let mine: Vec<usize> = match opts.shard {
        Some((i, n)) => plan.shard(i, n),
        None => (0..plan.points.len()).collect(),
    };
    let pending: Vec<usize> = mine.iter().copied().filter(|i| !done.contains(i)).collect();
    let mut outcome = Outcome {
        total: mine.len(),
        resumed: mine.len() - pending.len(),
        ..Outcome::default()
    };
    progress.start(outcome.total, outcome.resumed);
    let writer = Mutex::new((file, None::<String>));
    let stop = opts.stop.clone().unwrap_or_default();
    let ran = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    pool.install(|| {
        pending.par_iter().with_max_len(1).for_each(|&i| {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let p = &plan.points[i];
            let runs = run_point(plan, p);
            let error = runs.as_ref().err().cloned();
            let line = table::format_row(fmt, &plan.columns, &metrics::row(plan, p, &runs));
            let mut w = writer.lock().unwrap_or_else(|e| e.into_inner());
            if w.1.is_some() {
                return;
            }
            if let Err(e) = w.0.write_all(line.as_bytes()).and_then(|_| w.0.flush()) {
                w.1 = Some(format!("{}: cannot write: {e}", out.display()));
                stop.store(true, Ordering::Relaxed);
                return;
            }
            drop(w);
            if error.is_some() {
                failed.fetch_add(1, Ordering::Relaxed);
            }
            let n = ran.fetch_add(1, Ordering::Relaxed) + 1;
            if opts.stop_after.is_some_and(|s| n >= s) {
                stop.store(true, Ordering::Relaxed);
            }
            progress.point(&plan.label(p), error.as_deref());
        });
    });
    let (file, write_error) = writer.into_inner().unwrap_or_else(|e| e.into_inner());
    drop(file);
    if let Some(e) = write_error {
        return Err(e);
    }
    outcome.ran = ran.load(Ordering::Relaxed);
    outcome.failed = failed.load(Ordering::Relaxed);
    outcome.interrupted = outcome.resumed + outcome.ran < outcome.total;
    sort_file(out, fmt)?;
    progress.finish();
    Ok(outcome)
}

/// Rewrites a results file with its rows in point order (through a temporary file and a
/// rename, so that a crash leaves the old file or the new, never half of one).
pub fn sort_file(out: &Path, fmt: Format) -> Result<(), String> {
    let raw = table::read_raw(out, fmt)?;
    let mut rows = raw.rows;
    rows.sort_by_key(|r| r.0);
    rows.dedup_by_key(|r| r.0);
    let mut text = String::new();
    if let Some(h) = &raw.header {
        text.push_str(&table::csv_header(h));
    }
    for (_, _, line) in &rows {
        text.push_str(line);
    }
    write_atomically(out, &text)
}

/// Writes a file through a temporary sibling and a rename (`outfile`): a failure
/// leaves the old file as it was and no temporary behind.
pub fn write_atomically(out: &Path, text: &str) -> Result<(), String> {
    outfile::write(out, text.as_bytes(), true).map_err(String::from)
}

/// Joins shard files into `out`: they must come from one spec and cover each of its
/// points exactly once. The result is the file an unsharded run writes.
pub fn merge(out: &Path, shards: &[PathBuf], force: bool) -> Result<usize, String> {
    let fmt = Format::of(out)?;
    if out.exists() && !force {
        return Err(format!(
            "{} exists; the merge does not overwrite it (choose another path, or --force)",
            out.display()
        ));
    }
    if shards.is_empty() {
        return Err("no shard files to merge".into());
    }
    let mut header: Option<Vec<String>> = None;
    let mut spec: Option<(String, PathBuf)> = None;
    let mut points: Option<usize> = None;
    let mut rows: Vec<(usize, String, String)> = Vec::new();
    for s in shards {
        if Format::of(s)? != fmt {
            return Err(format!(
                "{}: a shard's format differs from {}'s",
                s.display(),
                out.display()
            ));
        }
        let raw = table::read_raw(s, fmt)?;
        if header.is_some() && raw.header.is_some() && header != raw.header {
            return Err(format!(
                "{}: its columns differ from the other shards'",
                s.display()
            ));
        }
        header = header.or(raw.header.clone());
        for r in &raw.rows {
            match &spec {
                Some((id, from)) if id != &r.1 => {
                    return Err(format!(
                        "{} and {} come from different specs ({} and {id})",
                        s.display(),
                        from.display(),
                        r.1
                    ));
                }
                None => spec = Some((r.1.clone(), s.clone())),
                _ => {}
            }
        }
        if raw.points.is_some() {
            points = raw.points;
        }
        rows.extend(raw.rows);
    }
    let total = points.ok_or("the shards hold no rows")?;
    rows.sort_by_key(|r| r.0);
    for w in rows.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(format!("point {} is in more than one shard", w[0].0));
        }
    }
    let have: BTreeSet<usize> = rows.iter().map(|r| r.0).collect();
    let missing: Vec<String> = (0..total)
        .filter(|i| !have.contains(i))
        .take(10)
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the shards do not cover the sweep: {} of {total} points missing (first: {}); \
             rerun the shards that stopped",
            total - have.len(),
            missing.join(", ")
        ));
    }
    let mut text = String::new();
    if let Some(h) = &header {
        text.push_str(&table::csv_header(h));
    }
    for (_, _, line) in &rows {
        text.push_str(line);
    }
    write_atomically(out, &text)?;
    Ok(total)
}

/// A rerun of a plan compared with a committed results file: the cells that differ
/// (`point`, column, committed, now), the fingerprint aside.
pub fn check(plan: &Plan, committed: &Path, jobs: usize) -> Result<Vec<String>, String> {
    let t = table::Table::read(committed)?;
    let indices: Vec<usize> = (0..plan.points.len()).collect();
    let now = run_rows(plan, &indices, jobs)?;
    let mut diffs = Vec::new();
    if t.rows.len() != now.len() {
        diffs.push(format!(
            "{} rows committed, {} points now",
            t.rows.len(),
            now.len()
        ));
    }
    for ((pi, row_now), row_then) in now.iter().enumerate().zip(&t.rows) {
        for (ci, c) in plan.columns.iter().enumerate() {
            if c == "spec" {
                continue;
            }
            let then = t
                .columns
                .iter()
                .position(|x| x == c)
                .map(|j| row_then[j].label());
            let now = row_now[ci].label();
            // One line per cell, as the file writes it.
            let now = now
                .lines()
                .map(str::trim_end)
                .collect::<Vec<_>>()
                .join(" | ");
            if then.as_deref() != Some(now.as_str()) {
                diffs.push(format!(
                    "point {pi} ({}): {c} committed {}, now {now}",
                    plan.label(&plan.points[pi]),
                    then.unwrap_or_else(|| "(no such column)".into()),
                ));
            }
        }
    }
    Ok(diffs)
}
