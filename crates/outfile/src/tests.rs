//! The promises: nothing replaced without `overwrite`, nothing half-written left
//! behind, an unwritable place refused before any work, with a clear message.

use super::*;

/// A fresh empty directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("outfile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The names in `d`, sorted.
fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn an_existing_file_is_kept_without_overwrite_and_replaced_with_it() {
    let d = dir("keep");
    let p = d.join("r.json");
    write(&p, b"old", false).unwrap();
    let e = write(&p, b"new", false).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{} exists; smsim does not overwrite files (choose another path)",
            p.display()
        )
    );
    assert_eq!(std::fs::read(&p).unwrap(), b"old");
    write(&p, b"new", true).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"new");
    assert_eq!(names(&d), ["r.json"]);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_file_that_appears_during_the_write_is_left_as_it_was() {
    let d = dir("appears");
    let p = d.join("t.json");
    let (pending, _) = Pending::create(&p, false).unwrap();
    std::fs::write(&p, b"theirs").unwrap();
    assert_eq!(
        pending.commit().unwrap_err().kind(),
        io::ErrorKind::AlreadyExists
    );
    assert_eq!(std::fs::read(&p).unwrap(), b"theirs");
    assert_eq!(names(&d), ["t.json"]);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_missing_directory_is_refused_before_any_work() {
    let d = dir("missing");
    let p = d.join("no/such/out.csv");
    let e = write(&p, b"x", false).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "cannot write {}: no directory {}",
            p.display(),
            d.join("no/such").display()
        )
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_failed_drawing_leaves_nothing_and_the_temporary_keeps_the_extension() {
    let d = dir("draw");
    let p = d.join("chart.png");
    std::fs::write(&p, b"old chart").unwrap();
    let r: Result<(), String> = write_with(&p, true, |tmp| {
        assert_eq!(tmp.extension().unwrap(), "png");
        assert_eq!(tmp.parent(), p.parent());
        std::fs::write(tmp, b"half").unwrap();
        Err("the backend failed".into())
    });
    assert_eq!(r.unwrap_err(), "the backend failed");
    assert_eq!(std::fs::read(&p).unwrap(), b"old chart");
    assert_eq!(names(&d), ["chart.png"]);
    let r: Result<(), String> = write_with(&p, true, |tmp| {
        std::fs::write(tmp, b"new chart").map_err(|e| e.to_string())
    });
    r.unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), b"new chart");
    assert_eq!(names(&d), ["chart.png"]);
    std::fs::remove_dir_all(&d).unwrap();
}
