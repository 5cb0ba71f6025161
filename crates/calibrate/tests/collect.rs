//! Tests that need no GPU: the file format, the no-driver path, the never-overwrite rule.

use calibrate::schema::{
    self, BenchError, Benchmark, KernelInfo, Measurement, Provenance, SourceRecord,
};
use calibrate::{
    CollectError, CollectOptions, check_driver_with, collect, create_new_file, default_out_path,
    driver_present, write_new,
};
use serde_json::json;
use std::path::PathBuf;

fn temp_dir(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let d = std::env::temp_dir().join(format!(
        "calibrate-test-{tag}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sample() -> Measurement {
    let mut params = std::collections::BTreeMap::new();
    params.insert("footprint_bytes".to_string(), json!(16 * 1024 * 1024));
    params.insert("expected_level".to_string(), json!("L2"));
    let mut extra = std::collections::BTreeMap::new();
    extra.insert("per_step_cycles".to_string(), json!([261, 270, 402]));
    let reps = vec![262.5, 263.0, 261.75];
    Measurement {
        schema: schema::SCHEMA.to_string(),
        provenance: Provenance {
            tool: "calibrate-collect".into(),
            tool_version: "0.1.0".into(),
            date_utc: "2026-11-22T08:00:00Z".into(),
            gpu_name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: [9, 0],
            sm_count: 132,
            l2_bytes: 52_428_800,
            total_mem_bytes: 85_520_809_984,
            max_smem_per_block_optin: 232_448,
            driver_api_version: 13000,
            cuda_version: "13.0".into(),
            nvrtc_version: "13.0".into(),
            clock_rate_khz_attr: Some(1_980_000),
            mem_clock_rate_khz_attr: None,
            mem_bus_width_bits: Some(5120),
            sm_clock_mhz_measured: Some(1980.0),
            arch: "sm_90a".into(),
            compile_options: vec!["--gpu-architecture=sm_90a".into()],
            quick: false,
            command: vec!["calibrate-collect".into(), "--out".into(), "x.json".into()],
            notes: vec![],
        },
        sources: vec![SourceRecord {
            name: "micro".into(),
            hash_algo: "fnv1a-64".into(),
            hash: schema::fnv1a64("int x;"),
            text: "int x;".into(),
            compile_log: String::new(),
            image_kind: "cubin".into(),
        }],
        kernels: vec![KernelInfo {
            name: "chase_ld".into(),
            source: "micro".into(),
            num_regs: 24,
            local_bytes: 0,
            static_smem_bytes: 8200,
        }],
        benchmarks: vec![Benchmark {
            name: "lat.ldg.ld.fp_16MiB".into(),
            group: "latency".into(),
            unit: "cycles".into(),
            params,
            median: schema::median(&reps).unwrap(),
            reps,
            source: "micro".into(),
            kernel: "chase_ld".into(),
            method: "pointer chase".into(),
            extra,
        }],
        errors: vec![BenchError {
            name: "lat.tma".into(),
            error: "example".into(),
        }],
    }
}

#[test]
fn measurement_round_trips_through_json() {
    let m = sample();
    let text = m.to_json().unwrap();
    let back = Measurement::from_json(&text).unwrap();
    assert_eq!(m, back);
    assert_eq!(back.get("lat.ldg.ld.fp_16MiB").unwrap().median, 262.5);
    // and the JSON says what it is
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], schema::SCHEMA);
    assert_eq!(v["provenance"]["sm_count"], 132);
    assert!(v["provenance"].get("hostname").is_none());
}

#[test]
fn committed_measurements_parse() {
    // every committed measurement file must stay readable by this schema
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        let name = p.file_name().and_then(|x| x.to_str()).unwrap_or_default();
        if name.ends_with(".json") || name.ends_with(".json.gz") {
            let text = calibrate::datafile::read_text(&p).unwrap();
            let m =
                Measurement::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert_eq!(m.schema, schema::SCHEMA);
            for b in &m.benchmarks {
                assert!(!b.reps.is_empty(), "{} has no repetitions", b.name);
                // serde_json's default float parser may be 1 ulp off: compare with a tolerance
                let med = schema::median(&b.reps).unwrap();
                assert!(
                    (b.median - med).abs() <= 1e-9 * med.abs().max(1.0),
                    "{}: median",
                    b.name
                );
                assert!(
                    m.sources.iter().any(|s| s.name == b.source),
                    "{}: unknown source",
                    b.name
                );
            }
            for s in &m.sources {
                assert_eq!(s.hash, schema::fnv1a64(&s.text), "source {} hash", s.name);
            }
        }
    }
}

#[test]
fn missing_driver_is_an_error_not_a_panic() {
    let e = check_driver_with(|| false).unwrap_err();
    assert!(matches!(e, CollectError::NoDriver));
    assert!(e.to_string().contains("libcuda"));
    assert!(check_driver_with(|| true).is_ok());
}

#[test]
fn collect_without_driver_returns_no_driver() {
    if driver_present() {
        return; // a machine with a GPU driver: covered by the device run
    }
    let dir = temp_dir("nodrv");
    let opts = CollectOptions {
        out: Some(dir.join("m.json")),
        ..Default::default()
    };
    let e = collect(&opts).unwrap_err();
    assert!(matches!(e, CollectError::NoDriver), "{e}");
    assert!(!dir.join("m.json").exists());
}

#[test]
fn never_overwrites() {
    let dir = temp_dir("overwrite");
    let p = dir.join("h100-x.json");
    write_new(&p, "first").unwrap();
    let e = write_new(&p, "second").unwrap_err();
    assert!(matches!(e, CollectError::OutputExists(_)), "{e}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "first");
    assert!(matches!(
        create_new_file(&p),
        Err(CollectError::OutputExists(_))
    ));
}

#[test]
fn default_path_picks_a_new_name() {
    let dir = temp_dir("default");
    let secs = 1_790_000_000; // 2026-09-21T14:13:20Z
    let p1 = default_out_path(&dir, "NVIDIA H100 80GB HBM3", secs);
    assert_eq!(p1.file_name().unwrap(), "h100-20260921T141320Z.json");
    write_new(&p1, "{}").unwrap();
    let p2 = default_out_path(&dir, "NVIDIA H100 80GB HBM3", secs);
    assert_ne!(p1, p2);
    assert_eq!(p2.file_name().unwrap(), "h100-20260921T141320Z-2.json");
}

#[test]
fn median_and_hash() {
    assert_eq!(schema::median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(schema::median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    assert_eq!(schema::median(&[f64::NAN]), None);
    assert_eq!(
        schema::percentile(&[1.0, 2.0, 3.0, 4.0, 5.0], 50.0),
        Some(3.0)
    );
    assert_eq!(schema::fnv1a64(""), "cbf29ce484222325");
    assert_eq!(schema::fnv1a64("a"), "af63dc4c8601ec8c");
}

/// A default collect takes the HBM copy latencies with the protocol of the files the fit
/// pools them from (their recorded command lines), so that a newcomer's collect measures
/// what the fit reads.
#[test]
fn default_collect_uses_the_fits_protocol() {
    let d = CollectOptions::default();
    for rel in calibrate::HBM_COPY_DATA {
        let text = calibrate::datafile::read_text(&calibrate::workspace_path(rel)).unwrap();
        let m = Measurement::from_json(&text).unwrap();
        let cmd = &m.provenance.command;
        let launches = cmd
            .iter()
            .position(|a| a == "--hbm-launches")
            .and_then(|i| cmd.get(i + 1))
            .and_then(|v| v.parse::<u32>().ok());
        assert_eq!(launches, Some(d.hbm_launches), "{rel}: {cmd:?}");
        assert_eq!(
            cmd.iter().any(|a| a == "--clean-flush"),
            d.clean_flush,
            "{rel}: {cmd:?}"
        );
        assert!(!cmd.iter().any(|a| a == "--flush-settle-us"), "{rel}");
    }
    assert_eq!(d.flush_settle_us, 0);
}

/// A report's default folder is new and beside the data, except for data inside the
/// source tree, whose report goes to the temporary folder; an existing folder is refused
/// before anything is computed.
#[test]
fn report_goes_into_a_new_folder_outside_the_source_tree() {
    use calibrate::report::{Output, ValidationInput, default_out_dir, run_with};
    let dir = temp_dir("report-dir");
    let data = dir.join("h100-x.json");
    std::fs::write(&data, "{}").unwrap();
    let tree = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let first = default_out_dir(&data, Some(&tree));
    assert_eq!(first.file_name().unwrap(), "h100-x-report");
    assert_eq!(
        std::fs::canonicalize(first.parent().unwrap()).unwrap(),
        std::fs::canonicalize(&dir).unwrap()
    );
    std::fs::create_dir(&first).unwrap();
    let second = default_out_dir(&data, Some(&tree));
    assert_eq!(second.file_name().unwrap(), "h100-x-report-2");
    // the committed primary lies in the source tree: its report goes elsewhere
    let primary = calibrate::workspace_path(calibrate::PRIMARY_DATA);
    let out = default_out_dir(&primary, Some(&tree));
    assert!(
        !std::fs::canonicalize(out.parent().unwrap())
            .unwrap()
            .starts_with(std::fs::canonicalize(&tree).unwrap()),
        "{}",
        out.display()
    );
    // an existing folder is refused, and nothing in it is touched
    std::fs::write(first.join("report.md"), "mine").unwrap();
    let val = ValidationInput::load(calibrate::VALIDATION_DATA).unwrap();
    let p = sim_core::Profile::builtin("h100").unwrap();
    let e = run_with(
        &sample(),
        "x.json",
        &Default::default(),
        &val,
        &p,
        &first,
        Output::NewDir,
    )
    .unwrap_err();
    assert!(e.contains("exists"), "{e}");
    assert_eq!(
        std::fs::read_to_string(first.join("report.md")).unwrap(),
        "mine"
    );
}
