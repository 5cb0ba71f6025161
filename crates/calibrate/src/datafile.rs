//! Reading committed measurement files, gzipped or not.
//!
//! The collects are stored gzipped (`NAME.json.gz`) so that the source tree stays small
//! enough to travel to the GPU machine; code names them by their plain name
//! (`NAME.json`), and [`read_text`] takes whichever of the two exists.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The file `path` names, or `path` with `.gz` appended when only that exists.
pub fn resolve(path: &Path) -> PathBuf {
    if path.exists() {
        return path.to_path_buf();
    }
    let mut gz = path.as_os_str().to_owned();
    gz.push(".gz");
    let gz = PathBuf::from(gz);
    if gz.exists() { gz } else { path.to_path_buf() }
}

/// `path` without a trailing `.gz`: the name code and reports know the file by.
pub fn plain_name(path: &Path) -> PathBuf {
    match path.to_str().and_then(|s| s.strip_suffix(".gz")) {
        Some(s) => PathBuf::from(s),
        None => path.to_path_buf(),
    }
}

/// The text of the file `path` names (see [`resolve`]), decompressed when its name ends
/// in `.gz`; errors name the file.
pub fn read_text(path: &Path) -> Result<String, String> {
    let file = resolve(path);
    let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    if file.extension().is_some_and(|x| x == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .map_err(|e| format!("{}: not a readable gzip of text: {e}", file.display()))?;
        Ok(text)
    } else {
        String::from_utf8(bytes).map_err(|e| format!("{}: not UTF-8 text: {e}", file.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_gzipped_file_reads_by_its_plain_name_and_a_plain_one_wins() {
        let dir = std::env::temp_dir().join(format!("smsim-datafile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.join("m.json");
        let gz = dir.join("m.json.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(b"{\"zipped\": true}").unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        assert_eq!(read_text(&plain).unwrap(), "{\"zipped\": true}");
        assert_eq!(read_text(&gz).unwrap(), "{\"zipped\": true}");
        assert_eq!(plain_name(&gz), plain);
        std::fs::write(&plain, "{}").unwrap();
        assert_eq!(read_text(&plain).unwrap(), "{}");
        std::fs::write(&gz, b"not gzip").unwrap();
        let err = read_text(&gz).unwrap_err();
        assert!(err.contains("m.json.gz") && err.contains("gzip"), "{err}");
        let missing = read_text(&dir.join("none.json")).unwrap_err();
        assert!(missing.contains("none.json"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
