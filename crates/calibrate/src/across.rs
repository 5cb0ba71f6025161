//! The microbenchmarks across GPUs: every committed collect grouped by the physical GPU
//! it ran on (the UUID in the `.env.txt` beside it), each benchmark's measured spread
//! (the lowest and highest GPU) beside the model's value, and each GPU scored against
//! the model with the benchmarks the fit never read from that GPU (out of sample) kept
//! apart from those it did (in sample).
//!
//! A benchmark counts as fitted when the model lies inside its measured spread or within
//! 3% of the measurement it is scored against, whichever is wider.
//!
//! Which measurements are comparable: a file's benchmark counts when its source has the
//! hash of the source the fit's file has by that name, it was not a quick run, and its
//! parameters are the fit's, except that for benchmarks other than the HBM copy
//! latencies the flush's cleaning and settling time are not compared (data/README.md:
//! they move only copies from HBM).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::schema::{Benchmark, Measurement};

/// One collect: its file name, the GPU it ran on and what it measured.
pub struct Collect {
    /// The measurement file's name.
    pub file: String,
    /// The GPU's UUID from the `.env.txt` beside it, or `unknown (FILE)` where it is
    /// missing or redacted (such a file counts as a GPU of its own).
    pub gpu: String,
    /// The measurements.
    pub m: Measurement,
}

/// The GPU UUID in an `.env.txt` (`nvidia-smi -q`'s `GPU UUID : GPU-...`), if present
/// and not redacted.
pub fn gpu_uuid(env_txt: &str) -> Option<String> {
    env_txt.lines().find_map(|l| {
        let (key, value) = l.split_once(':')?;
        let value = value.trim();
        (key.trim() == "GPU UUID" && value.starts_with("GPU-")).then(|| value.to_string())
    })
}

/// Every `*.json` (or `*.json.gz`, known by its plain name) directly in `dir` (not its subfolders: superseded and validation
/// files live there), with the GPU from the `.env.txt` beside each; `extra` files are
/// added (their `.env.txt` likewise). Sorted by file name.
pub fn load_collects(dir: &Path, extra: &[&Path]) -> Result<Vec<Collect>, String> {
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".json") || n.ends_with(".json.gz"))
        })
        .map(|p| crate::datafile::plain_name(&p))
        .collect();
    paths.extend(extra.iter().map(|p| p.to_path_buf()));
    paths.sort_by_key(|p| p.file_name().map(|s| s.to_os_string()));
    paths.dedup_by_key(|p| p.file_name().map(|s| s.to_os_string()));
    let mut out = Vec::new();
    for p in paths {
        let text = crate::datafile::read_text(&p)?;
        let mut m = Measurement::from_json(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        // one SM's L2 distance taken out; a file with no per-SM reference keeps none of
        // the benchmarks it would move (`placement`)
        crate::placement::normalize(&mut m, true);
        let file = p
            .file_name()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let env = p.with_extension("env.txt");
        let gpu = std::fs::read_to_string(&env)
            .ok()
            .and_then(|t| gpu_uuid(&t))
            .unwrap_or_else(|| format!("unknown ({file})"));
        out.push(Collect { file, gpu, m });
    }
    Ok(out)
}

/// The parameters that name how a benchmark was taken, less those that do not matter
/// for it: for anything but an HBM copy latency, the flush's cleaning and settling.
fn protocol(b: &Benchmark) -> BTreeMap<String, Value> {
    let mut p = b.params.clone();
    if !crate::is_hbm_copy_latency(&b.name) {
        p.remove("l2_flush");
        p.remove("flush_settle_us");
    }
    p
}

fn source_hash<'a>(m: &'a Measurement, source: &str) -> Option<&'a str> {
    m.sources
        .iter()
        .find(|s| s.name == source)
        .map(|s| s.hash.as_str())
}

/// Whether `b` of `m` measures what `reference` of `refm` measures (same source text,
/// same protocol, not a quick run).
pub fn comparable(
    m: &Measurement,
    b: &Benchmark,
    refm: &Measurement,
    reference: &Benchmark,
) -> bool {
    !m.provenance.quick
        && b.source == reference.source
        && source_hash(m, &b.source).is_some()
        && source_hash(m, &b.source) == source_hash(refm, &reference.source)
        && protocol(b) == protocol(reference)
}

/// One benchmark across GPUs.
#[derive(Clone, Debug)]
pub struct Spread {
    /// The benchmark.
    pub bench: String,
    /// Its twin's group.
    pub group: String,
    /// Per GPU, the median of every comparable repetition of its files.
    pub per_gpu: BTreeMap<String, f64>,
    /// The GPUs the fit read this benchmark from.
    pub fitted_on: Vec<String>,
    /// The model's value.
    pub simulated: f64,
}

impl Spread {
    /// The lowest GPU's value.
    pub fn min(&self) -> f64 {
        self.per_gpu.values().copied().fold(f64::INFINITY, f64::min)
    }
    /// The highest GPU's value.
    pub fn max(&self) -> f64 {
        self.per_gpu
            .values()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
    }
    /// The median over GPUs (of the per-GPU values).
    pub fn median(&self) -> f64 {
        let v: Vec<f64> = self.per_gpu.values().copied().collect();
        crate::schema::median(&v).unwrap_or(f64::NAN)
    }
    /// (max - min) / median, in percent.
    pub fn spread_pct(&self) -> f64 {
        (self.max() - self.min()) / self.median() * 100.0
    }
    /// Whether the model counts as fitted against `measured`: inside the spread, or
    /// within 3% of `measured`.
    pub fn in_band(&self, measured: f64) -> bool {
        in_band(self.simulated, measured, self.min(), self.max())
    }
    /// The same read strictly for `gpu`'s value ([`in_band_strict`]), against the spread
    /// of the other GPUs: a GPU's own value never widens the band it is judged by (with
    /// no other GPU, within 3%).
    pub fn in_band_strict_for(&self, gpu: &str) -> bool {
        let Some(&measured) = self.per_gpu.get(gpu) else {
            return false;
        };
        let others: Vec<f64> = self
            .per_gpu
            .iter()
            .filter(|(g, _)| g.as_str() != gpu)
            .map(|(_, v)| *v)
            .collect();
        if others.is_empty() {
            return ((self.simulated - measured) / measured).abs() <= 0.03;
        }
        let lo = others.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = others.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        in_band_strict(self.simulated, measured, lo, hi)
    }

    /// The lowest and highest value of the GPUs other than `gpu`, if any.
    pub fn others_range(&self, gpu: &str) -> Option<(f64, f64)> {
        let others = self.per_gpu.iter().filter(|(g, _)| g.as_str() != gpu);
        let (lo, hi) = others.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, v)| {
            (lo.min(*v), hi.max(*v))
        });
        (lo <= hi).then_some((lo, hi))
    }
}

/// Why a GPU misses a benchmark read strictly, judged by where its value lies against
/// the other GPUs' spread (the leave-out fit's data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissKind {
    /// Its strict band ([`strict_band`]) does not meet the other GPUs' spread: the GPU
    /// is more than 3% outside every other GPU's value, so no model fitted to the
    /// others (which sits inside their spread) passes it.
    Noise,
    /// Some model inside the other GPUs' spread would pass it: the fit (a parameter
    /// pulled between benchmarks) or the model's shape.
    Model,
}

/// One out-of-sample benchmark a GPU misses read strictly.
#[derive(Clone, Debug)]
pub struct StrictMiss {
    /// The benchmark.
    pub bench: String,
    /// The GPU's value.
    pub measured: f64,
    /// The model's value.
    pub simulated: f64,
    /// (simulated - measured) / measured, in percent.
    pub err_pct: f64,
    /// The other GPUs' lowest and highest values (none: no other GPU measured it).
    pub others: Option<(f64, f64)>,
    /// Noise or model.
    pub kind: MissKind,
}

impl StrictMiss {
    /// How far the GPU's value lies outside the other GPUs' spread, in percent of the
    /// nearer end (negative below it, positive above, 0 inside or with no other GPU).
    pub fn outside_pct(&self) -> f64 {
        match self.others {
            Some((lo, _)) if self.measured < lo => (self.measured - lo) / lo * 100.0,
            Some((_, hi)) if self.measured > hi => (self.measured - hi) / hi * 100.0,
            _ => 0.0,
        }
    }
}

/// [`Spread`]'s strict miss for `gpu` (whose value is `measured`), classified.
fn strict_miss(sp: &Spread, gpu: &str, measured: f64) -> StrictMiss {
    let others = sp.others_range(gpu);
    let kind = match others {
        Some((lo, hi)) => {
            let (blo, bhi) = strict_band(measured, &[lo, hi]);
            if bhi < lo || blo > hi {
                MissKind::Noise
            } else {
                MissKind::Model
            }
        }
        None => MissKind::Model,
    };
    StrictMiss {
        bench: sp.bench.clone(),
        measured,
        simulated: sp.simulated,
        err_pct: (sp.simulated - measured) / measured * 100.0,
        others,
        kind,
    }
}

/// The band rule: `sim` inside `[lo, hi]` or within 3% of `measured` (the issue's
/// "inside its spread or within 3%, whichever is wider" as the union of the two).
pub fn in_band(sim: f64, measured: f64, lo: f64, hi: f64) -> bool {
    (lo..=hi).contains(&sim) || ((sim - measured) / measured).abs() <= 0.03
}

/// The same phrase read strictly: the band is the spread `[lo, hi]` when it is wider
/// than the 6% of `measured` that +-3% spans, else `measured` +-3%; never both. A model
/// outside a wide spread then misses even within 3% of a GPU at the spread's edge.
pub fn in_band_strict(sim: f64, measured: f64, lo: f64, hi: f64) -> bool {
    if hi - lo > 2.0 * 0.03 * measured.abs() {
        (lo..=hi).contains(&sim)
    } else {
        ((sim - measured) / measured).abs() <= 0.03
    }
}

/// The band `value` is judged in read strictly ([`in_band_strict`]) against the values
/// of the other GPUs, `others`: their spread where it is wider than +-3% of `value`, else
/// `value` +-3% (so also with no other GPU).
pub fn strict_band(value: f64, others: &[f64]) -> (f64, f64) {
    let lo = others.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = others.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !others.is_empty() && hi - lo > 2.0 * 0.03 * value.abs() {
        (lo, hi)
    } else {
        (value - 0.03 * value.abs(), value + 0.03 * value.abs())
    }
}

/// Each GPU's strict band ([`strict_band`]) in `values`, judged against the others, as
/// leave-one-GPU-out judges it.
pub fn strict_bands(values: &[f64]) -> Vec<(f64, f64)> {
    (0..values.len())
        .map(|i| {
            let others: Vec<f64> = values
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, v)| *v)
                .collect();
            strict_band(values[i], &others)
        })
        .collect()
}

/// The model values every GPU of `values` would accept read strictly: the intersection
/// of their [`strict_bands`], or `None` where they do not meet (or there is no GPU).
pub fn strict_window(values: &[f64]) -> Option<(f64, f64)> {
    intersect(&strict_bands(values))
}

/// The values every band of `bands` holds, or `None` where they do not meet (or there
/// is no band).
pub fn intersect(bands: &[(f64, f64)]) -> Option<(f64, f64)> {
    let lo = bands.iter().map(|b| b.0).fold(f64::NEG_INFINITY, f64::max);
    let hi = bands.iter().map(|b| b.1).fold(f64::INFINITY, f64::min);
    (!bands.is_empty() && lo <= hi).then_some((lo, hi))
}

/// For each benchmark of the fit's data (`reference`: the benchmarks as the fit reads
/// them, each with the GPU and raw file it was read from), the per-GPU values from
/// `collects`, with the model's value from `simulated` (bench, group, value).
pub fn spreads(
    collects: &[Collect],
    reference: &BTreeMap<String, (String, String)>,
    simulated: &[(String, String, f64)],
) -> Vec<Spread> {
    let by_file: BTreeMap<&str, &Collect> = collects.iter().map(|c| (c.file.as_str(), c)).collect();
    let mut out = Vec::new();
    for (bench, group, sim) in simulated {
        let Some((ref_file, ref_gpu)) = reference.get(bench) else {
            continue;
        };
        let Some(refc) = by_file.get(ref_file.as_str()) else {
            continue;
        };
        let Some(refb) = refc.m.get(bench) else {
            continue;
        };
        let mut reps: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for c in collects {
            if let Some(b) = c.m.get(bench)
                && comparable(&c.m, b, &refc.m, refb)
            {
                reps.entry(c.gpu.clone())
                    .or_default()
                    .extend(b.reps.iter().copied());
            }
        }
        let per_gpu = reps
            .into_iter()
            .filter_map(|(g, r)| crate::schema::median(&r).map(|m| (g, m)))
            .collect();
        out.push(Spread {
            bench: bench.clone(),
            group: group.clone(),
            per_gpu,
            fitted_on: vec![ref_gpu.clone()],
            simulated: *sim,
        });
    }
    out
}

/// One GPU scored against the model.
#[derive(Clone, Debug, Default)]
pub struct GpuScore {
    /// The GPU.
    pub gpu: String,
    /// Its files.
    pub files: Vec<String>,
    /// Benchmarks the fit read from another GPU (or none): (count, in band, within 3%,
    /// sum of absolute errors in percent).
    pub out_of_sample: (usize, usize, usize, f64),
    /// Benchmarks the fit read from this GPU, likewise.
    pub in_sample: (usize, usize, usize, f64),
    /// The out-of-sample benchmarks outside the band: (bench, measured, simulated, error %).
    pub misses: Vec<(String, f64, f64, f64)>,
    /// Out-of-sample benchmarks in band read strictly ([`Spread::in_band_strict_for`]:
    /// against the other GPUs' spread).
    pub out_of_sample_strict: usize,
    /// The out-of-sample benchmarks outside the band read strictly, classified.
    pub strict_misses: Vec<StrictMiss>,
}

/// Scores every GPU: each benchmark it measured, the model's error against its value,
/// in band by [`Spread::in_band`] against that value; split by whether the fit read
/// that benchmark from this GPU.
pub fn score_gpus(collects: &[Collect], spreads: &[Spread]) -> Vec<GpuScore> {
    let mut by_gpu: BTreeMap<String, GpuScore> = BTreeMap::new();
    for c in collects {
        let s = by_gpu.entry(c.gpu.clone()).or_insert_with(|| GpuScore {
            gpu: c.gpu.clone(),
            ..Default::default()
        });
        s.files.push(c.file.clone());
    }
    for sp in spreads {
        for (gpu, &meas) in &sp.per_gpu {
            let Some(s) = by_gpu.get_mut(gpu) else {
                continue;
            };
            let err = (sp.simulated - meas) / meas * 100.0;
            let band = sp.in_band(meas);
            let inside = sp.fitted_on.contains(gpu);
            let t = if inside {
                &mut s.in_sample
            } else {
                &mut s.out_of_sample
            };
            t.0 += 1;
            t.1 += usize::from(band);
            t.2 += usize::from(err.abs() <= 3.0);
            t.3 += err.abs();
            if !inside && !band {
                s.misses.push((sp.bench.clone(), meas, sp.simulated, err));
            }
            if !inside {
                if sp.in_band_strict_for(gpu) {
                    s.out_of_sample_strict += 1;
                } else {
                    s.strict_misses.push(strict_miss(sp, gpu, meas));
                }
            }
        }
    }
    by_gpu
        .into_values()
        .filter(|s| s.in_sample.0 + s.out_of_sample.0 > 0)
        .collect()
}

/// The benchmarks as the fit reads them: for each benchmark of the primary (after
/// [`crate::load_data`]'s pooling and additions), the raw file it comes from and that
/// file's GPU. The HBM copy latencies come from [`crate::HBM_COPY_DATA`] (their first
/// file stands for the protocol; both ran on one GPU).
pub fn fit_reference(collects: &[Collect]) -> BTreeMap<String, (String, String)> {
    let name = |rel: &str| rel.rsplit('/').next().unwrap_or(rel).to_string();
    let gpu_of = |file: &str| {
        collects
            .iter()
            .find(|c| c.file == file)
            .map(|c| c.gpu.clone())
            .unwrap_or_default()
    };
    let primary = name(crate::PRIMARY_DATA);
    let hbm = name(crate::HBM_COPY_DATA[0]);
    let mut out = BTreeMap::new();
    if let Some(p) = collects.iter().find(|c| c.file == primary) {
        for b in &p.m.benchmarks {
            let file = if crate::is_hbm_copy_latency(&b.name) {
                hbm.clone()
            } else {
                primary.clone()
            };
            let gpu = gpu_of(&file);
            out.insert(b.name.clone(), (file, gpu));
        }
    }
    for (file, benches) in crate::ADDED_DATA {
        let file = name(file);
        for b in benches {
            out.insert(b.to_string(), (file.clone(), gpu_of(&file)));
        }
    }
    out
}

/// The benchmarks as a fit to the one collect `file` reads them (e.g. a profile fitted
/// with `calibrate fit --data FILE`): each from that file and its GPU.
pub fn single_file_reference(
    collects: &[Collect],
    file: &str,
) -> Result<BTreeMap<String, (String, String)>, String> {
    let c = collects
        .iter()
        .find(|c| c.file == file)
        .ok_or_else(|| format!("{file} is not among the collects"))?;
    Ok(c.m
        .benchmarks
        .iter()
        .map(|b| (b.name.clone(), (c.file.clone(), c.gpu.clone())))
        .collect())
}

/// A GPU's short name: the first 8 characters of its UUID after `GPU-`.
pub fn short(gpu: &str) -> String {
    gpu.strip_prefix("GPU-")
        .map(|u| u.chars().take(8).collect())
        .unwrap_or_else(|| gpu.to_string())
}

/// The markdown: the per-GPU scores (out of sample first), then every benchmark's spread.
pub fn markdown(
    collects: &[Collect],
    spreads: &[Spread],
    scores: &[GpuScore],
    profile: &str,
) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let gpus: std::collections::BTreeSet<&str> = collects.iter().map(|c| c.gpu.as_str()).collect();
    let _ = writeln!(
        s,
        "# The microbenchmarks across GPUs\n\nGenerated by `smsim calibrate across` from {} collects on {} GPUs (grouped by the UUID in each file's `.env.txt`), against the `{profile}` profile. A benchmark counts as fitted (in band) when the model lies inside the measured spread (lowest to highest GPU) or within 3% of the measurement it is scored against, whichever is wider. Only comparable measurements count: the fit's source text (same hash) and protocol (HBM copy latencies: 64 launches, clean flush, no settling time).\n",
        collects.len(),
        gpus.len()
    );
    let _ = writeln!(
        s,
        "## Each GPU scored against the model\n\nOut of sample: benchmarks the fit read from another GPU, so the model was fitted without this GPU's value (the committed fit reads the median over every GPU, so all its values are in sample: the out-of-sample figures are in `leave-one-gpu-out.md`). In sample: benchmarks the fit read from this GPU.\n\n| GPU | files | out of sample: n | in band | within 3% | MAPE | in sample: n | in band | within 3% | MAPE |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    let pct = |a: usize, n: usize| {
        if n == 0 {
            "-".to_string()
        } else {
            format!("{a} ({:.1}%)", a as f64 / n as f64 * 100.0)
        }
    };
    let mape = |sum: f64, n: usize| {
        if n == 0 {
            "-".to_string()
        } else {
            format!("{:.2}%", sum / n as f64)
        }
    };
    let mut tot = (0usize, 0usize, 0usize, 0.0f64);
    let mut worst: Option<(f64, String)> = None;
    for g in scores {
        let (o, i) = (g.out_of_sample, g.in_sample);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            short(&g.gpu),
            g.files.len(),
            o.0,
            pct(o.1, o.0),
            pct(o.2, o.0),
            mape(o.3, o.0),
            i.0,
            pct(i.1, i.0),
            pct(i.2, i.0),
            mape(i.3, i.0)
        );
        tot = (tot.0 + o.0, tot.1 + o.1, tot.2 + o.2, tot.3 + o.3);
        if o.0 > 0 {
            let share = o.1 as f64 / o.0 as f64 * 100.0;
            if worst.as_ref().is_none_or(|w| share < w.0) {
                worst = Some((share, short(&g.gpu)));
            }
        }
    }
    let _ = writeln!(
        s,
        "\nOut of sample over every GPU: {} GPU-benchmark pairs, {} in band, {} within 3%, MAPE {}; the lowest GPU's share in band {}.\n",
        tot.0,
        pct(tot.1, tot.0),
        pct(tot.2, tot.0),
        mape(tot.3, tot.0),
        worst.map_or("-".to_string(), |w| format!("{:.1}% ({})", w.0, w.1))
    );
    let _ = writeln!(
        s,
        "### Out-of-sample benchmarks outside the band\n\n| GPU | benchmark | measured | simulated | error |\n|---|---|---|---|---|"
    );
    for g in scores {
        for (b, m, v, e) in &g.misses {
            let _ = writeln!(
                s,
                "| {} | `{b}` | {m:.2} | {v:.2} | {e:+.2}% |",
                short(&g.gpu)
            );
        }
    }
    let _ = writeln!(
        s,
        "\n## Each benchmark's spread\n\n| benchmark | group | GPUs | lowest | median | highest | spread | simulated | error vs median | in band (vs median) |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut n_band = 0;
    let mut n_multi = 0;
    for sp in spreads {
        if sp.per_gpu.is_empty() {
            continue;
        }
        let med = sp.median();
        let band = sp.in_band(med);
        if sp.per_gpu.len() > 1 {
            n_multi += 1;
            n_band += usize::from(band);
        }
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {:.2} | {:.2} | {:.2} | {:.1}% | {:.2} | {:+.2}% | {} |",
            sp.bench,
            sp.group,
            sp.per_gpu.len(),
            sp.min(),
            med,
            sp.max(),
            sp.spread_pct(),
            sp.simulated,
            (sp.simulated - med) / med * 100.0,
            if band { "yes" } else { "**no**" }
        );
    }
    let _ = writeln!(
        s,
        "\nOf the {n_multi} benchmarks measured on more than one GPU, {n_band} are in band against the median over GPUs.\n\nGPUs (short name: UUID; files):\n"
    );
    for g in scores {
        let _ = writeln!(s, "- {}: {}; {}", short(&g.gpu), g.gpu, g.files.join(", "));
    }
    s
}

/// The fit's data with each benchmark's median replaced by the median over GPUs of the
/// per-GPU values (comparable collects only, as in [`spreads`]), leaving out the GPU
/// `leave_out` (a UUID or its first characters) if given: what a fit to the median GPU
/// reads. Each benchmark's repetitions become its per-GPU values; everything else (the
/// per-step percentiles the fit reads off the L2 chase) stays the fit's file's. Returns
/// the measurement and the benchmarks no other GPU measured (kept as the fit's file has
/// them).
pub fn median_measurement(
    collects: &[Collect],
    reference: &BTreeMap<String, (String, String)>,
    fit_data: &Measurement,
    leave_out: Option<&str>,
) -> (Measurement, Vec<String>) {
    let left_out = |gpu: &str| leave_out.is_some_and(|l| gpu == l || short(gpu) == l);
    let mut m = fit_data.clone();
    let mut kept = Vec::new();
    let names: Vec<(String, String, f64)> = m
        .benchmarks
        .iter()
        .map(|b| (b.name.clone(), String::new(), b.median))
        .collect();
    let sp = spreads(collects, reference, &names);
    for s in sp {
        let values: Vec<f64> = s
            .per_gpu
            .iter()
            .filter(|(g, _)| !left_out(g))
            .map(|(_, v)| *v)
            .collect();
        let Some(b) = m.benchmarks.iter_mut().find(|b| b.name == s.bench) else {
            continue;
        };
        match crate::schema::median(&values) {
            Some(med) => {
                b.median = med;
                // the per-GPU values, for the report's spread column
                let per_gpu: serde_json::Map<String, Value> = s
                    .per_gpu
                    .iter()
                    .filter(|(g, _)| !left_out(g))
                    .map(|(g, v)| (g.clone(), Value::from(*v)))
                    .collect();
                b.extra.insert(PER_GPU.into(), Value::Object(per_gpu));
                b.method = format!(
                    "{}; the median over {} GPUs of each GPU's median",
                    b.method,
                    values.len()
                );
                b.reps = values;
            }
            None => kept.push(s.bench.clone()),
        }
    }
    (m, kept)
}

/// The key of [`median_measurement`]'s per-GPU values in a benchmark's `extra`: an
/// object from GPU UUID to that GPU's median.
pub const PER_GPU: &str = "per_gpu";

/// The per-GPU values [`median_measurement`] left in a benchmark, if any.
pub fn per_gpu_values(b: &Benchmark) -> Vec<f64> {
    b.extra
        .get(PER_GPU)
        .and_then(Value::as_object)
        .map(|o| o.values().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// The per-GPU values [`median_measurement`] left in a benchmark, with each GPU's UUID.
pub fn per_gpu_keyed(b: &Benchmark) -> Vec<(String, f64)> {
    b.extra
        .get(PER_GPU)
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .filter_map(|(g, v)| Some((g.clone(), v.as_f64()?)))
                .collect()
        })
        .unwrap_or_default()
}

/// How the fitted profiles and the report name the median data.
pub fn median_data_name(leave_out: Option<&str>) -> String {
    match leave_out {
        Some(g) => format!("the median over the GPUs of {} but {g}", crate::DATA_DIR),
        None => format!("the median over the GPUs of {}", crate::DATA_DIR),
    }
}

/// What the built-in fit reads: the committed collects of `dir` (grouped by GPU), each
/// benchmark at its median over GPUs ([`median_measurement`]), less `leave_out`. Returns
/// the measurement and the benchmarks no other GPU measured.
pub fn median_data(
    dir: &Path,
    leave_out: Option<&str>,
) -> Result<(Measurement, Vec<String>), String> {
    let (collects, fit_data) = load_all(dir, &[])?;
    let reference = fit_reference(&collects);
    Ok(median_measurement(
        &collects, &reference, &fit_data, leave_out,
    ))
}

/// What the scored profile was fitted to, which decides what is in sample.
#[derive(Clone, Copy, Debug)]
pub enum FittedOn<'a> {
    /// The committed fit: the median over every GPU ([`median_data`]), so every GPU's
    /// value is in sample; the headline out-of-sample figures are leave-one-GPU-out.
    Committed,
    /// One collect (`calibrate fit --data FILE`): its GPU's benchmarks.
    File(&'a str),
    /// The median over GPUs (`calibrate fit --median-across-gpus`), leaving out a GPU (a
    /// UUID or its first 8 characters) or none: every other GPU is in sample.
    MedianWithout(Option<&'a str>),
}

/// The collects of `dir` and `extra`, and the fit's data as the committed fit reads it.
pub fn load_all(dir: &Path, extra: &[&Path]) -> Result<(Vec<Collect>, Measurement), String> {
    Ok((
        load_collects(dir, extra)?,
        crate::load_data(crate::PRIMARY_DATA)?,
    ))
}

/// The comparison for a profile fitted as `fitted_on` says.
pub fn run(
    dir: &Path,
    extra: &[&Path],
    p: &sim_core::Profile,
    fitted_on: FittedOn<'_>,
) -> Result<String, String> {
    let collects = load_collects(dir, extra)?;
    let (sp, scores) = score(&collects, p, fitted_on)?;
    Ok(markdown(&collects, &sp, &scores, &p.file.name))
}

/// Each benchmark's spread with `p`'s value, and every GPU scored, for a profile fitted
/// as `fitted_on` says.
pub fn score(
    collects: &[Collect],
    p: &sim_core::Profile,
    fitted_on: FittedOn<'_>,
) -> Result<(Vec<Spread>, Vec<GpuScore>), String> {
    use rayon::prelude::*;
    let reference = match fitted_on {
        FittedOn::File(f) => single_file_reference(collects, f)?,
        _ => fit_reference(collects),
    };
    let fit_data = crate::load_data(crate::PRIMARY_DATA)?;
    let targets = crate::fit::targets(&fit_data);
    let sims: Vec<Result<(String, String, f64), String>> = targets
        .par_iter()
        .map(|t| {
            t.twin
                .eval(p)
                .map(|v| (t.twin.bench.clone(), t.twin.group.to_string(), v))
                .map_err(|e| format!("{}: {e}", t.twin.bench))
        })
        .collect();
    let sims = sims.into_iter().collect::<Result<Vec<_>, String>>()?;
    let mut sp = spreads(collects, &reference, &sims);
    let median_without = match fitted_on {
        FittedOn::MedianWithout(l) => Some(l),
        FittedOn::Committed => Some(None),
        _ => None,
    };
    if let Some(leave_out) = median_without {
        for s in &mut sp {
            s.fitted_on = s
                .per_gpu
                .keys()
                .filter(|g| leave_out.is_none_or(|l| !is_gpu(g, l)))
                .cloned()
                .collect();
        }
    }
    let scores = score_gpus(collects, &sp);
    Ok((sp, scores))
}

/// Whether `gpu` (a UUID) is the GPU `name` names: the UUID or its first 8 characters.
pub fn is_gpu(gpu: &str, name: &str) -> bool {
    gpu == name || short(gpu) == name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_from_env() {
        let env = "    Serial Number      : 1753\n    GPU UUID           : GPU-196e9a26-f2ea\n";
        assert_eq!(gpu_uuid(env).as_deref(), Some("GPU-196e9a26-f2ea"));
        assert_eq!(gpu_uuid("    GPU UUID : <redacted>\n"), None);
        assert_eq!(gpu_uuid("nothing"), None);
    }

    #[test]
    fn a_gpu_is_judged_strictly_without_its_own_value() {
        let sp = Spread {
            bench: "b".into(),
            group: "g".into(),
            per_gpu: [
                ("a".to_string(), 100.0),
                ("b".to_string(), 101.0),
                ("c".to_string(), 110.0),
            ]
            .into_iter()
            .collect(),
            fitted_on: vec![],
            simulated: 106.0,
        };
        // inside [100, 110] with c's own 110, 3.6% from it; the others' [100, 101] is
        // narrower than +-3%: out for c, strictly
        assert!(sp.in_band(110.0) && !sp.in_band_strict_for("c"));
        // a: the others' spread [101, 110] is wider than +-3% of 100 and holds 106
        assert!(sp.in_band_strict_for("a"));
        assert!(!sp.in_band_strict_for("unknown"));
    }

    #[test]
    fn band_is_the_wider_of_spread_and_three_percent() {
        // inside a wide spread though 10% off the measurement
        assert!(in_band(110.0, 100.0, 95.0, 120.0));
        // outside a narrow spread but within 3%
        assert!(in_band(102.9, 100.0, 99.5, 100.5));
        // outside both
        assert!(!in_band(104.0, 100.0, 99.0, 101.0));
        assert!(!in_band(96.0, 100.0, 99.0, 101.0));
        // read strictly: a spread of 10% is the band, 2% off its edge is out
        assert!(!in_band_strict(98.0, 100.0, 100.0, 110.0));
        assert!(in_band(98.0, 100.0, 100.0, 110.0));
        assert!(in_band_strict(109.0, 100.0, 100.0, 110.0));
        // a spread of 2% is narrower than +-3%: within 3% counts, outside the spread
        assert!(in_band_strict(102.9, 100.0, 99.0, 101.0));
        assert!(!in_band_strict(103.1, 100.0, 99.0, 103.0));
    }

    fn spread(per_gpu: &[(&str, f64)], fitted_on: &str, sim: f64) -> Spread {
        Spread {
            bench: "b".into(),
            group: "g".into(),
            per_gpu: per_gpu.iter().map(|(g, v)| (g.to_string(), *v)).collect(),
            fitted_on: vec![fitted_on.into()],
            simulated: sim,
        }
    }

    #[test]
    fn scores_keep_in_and_out_of_sample_apart() {
        let mk = |file: &str, gpu: &str| Collect {
            file: file.into(),
            gpu: gpu.into(),
            m: Measurement::from_json(
                &crate::datafile::read_text(&crate::workspace_path(crate::HBM_COPY_DATA[0]))
                    .unwrap(),
            )
            .unwrap(),
        };
        let collects = [mk("a.json", "A"), mk("b.json", "B")];
        // fitted on A (exactly), B measures 10% more: B's value is out of sample, in
        // band because the spread 100..110 holds the model
        let sp = [spread(&[("A", 100.0), ("B", 110.0)], "A", 100.0)];
        let s = score_gpus(&collects, &sp);
        assert_eq!(s[0].gpu, "A");
        assert_eq!(s[0].in_sample, (1, 1, 1, 0.0));
        assert_eq!(s[0].out_of_sample.0, 0);
        assert_eq!(s[1].out_of_sample.0, 1);
        assert_eq!(s[1].out_of_sample.1, 1);
        assert_eq!(s[1].out_of_sample.2, 0);
        // a model outside the spread and 5% off B is a miss on B
        let sp = [spread(&[("A", 100.0), ("B", 101.0)], "A", 106.0)];
        let s = score_gpus(&collects, &sp);
        assert_eq!(s[1].misses.len(), 1);
        assert!((s[1].misses[0].3 - (106.0 / 101.0 - 1.0) * 100.0).abs() < 1e-9);
    }
}
