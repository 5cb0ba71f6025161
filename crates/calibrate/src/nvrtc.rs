//! Run-time compilation with NVRTC. Asks for a cubin for the real target (`sm_90a`), so
//! NVRTC's own ptxas makes the machine code (and the cubin can be disassembled); falls
//! back to PTX for the virtual target (`compute_90a`) that the driver compiles at load.

use crate::CollectError;
use cudarc::nvrtc::sys;
use std::ffi::{CString, c_char};

/// The result of compiling one source.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub name: String,
    /// A cubin, or NUL-terminated PTX text.
    pub image: Vec<u8>,
    /// "cubin" or "ptx".
    pub kind: String,
    pub log: String,
    pub options: Vec<String>,
}

/// True when libnvrtc can be loaded (cudarc panics on first use otherwise).
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { sys::is_culib_present() }
}

/// NVRTC's version as "major.minor".
pub fn version() -> Result<String, CollectError> {
    let (mut a, mut b) = (0i32, 0i32);
    // SAFETY: writes two ints.
    let r = unsafe { sys::nvrtcVersion(&mut a, &mut b) };
    if r != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(CollectError::Nvrtc(format!("nvrtcVersion: {r:?}")));
    }
    Ok(format!("{a}.{b}"))
}

/// The options used for `arch` (e.g. "sm_90a").
pub fn options_for(arch: &str) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".to_string(),
    ]
}

/// Compiles `src` for `arch` ("sm_90a"); if that yields no cubin, retries with the
/// virtual architecture ("compute_90a") and returns PTX.
pub fn compile(name: &str, src: &str, arch: &str) -> Result<Compiled, CollectError> {
    match compile_once(name, src, arch, true) {
        Ok(c) => Ok(c),
        Err(first) => {
            let virt = arch.replacen("sm_", "compute_", 1);
            if virt == arch {
                return Err(first);
            }
            compile_once(name, src, &virt, false).map_err(|second| CollectError::Compile {
                name: name.to_string(),
                log: format!("{first}\n--- retry with {virt} ---\n{second}"),
            })
        }
    }
}

fn compile_once(name: &str, src: &str, arch: &str, cubin: bool) -> Result<Compiled, CollectError> {
    let c_src = CString::new(src).map_err(|_| CollectError::Nvrtc("source holds a NUL".into()))?;
    let c_name = CString::new(format!("{name}.cu")).expect("name without NUL");
    let options = options_for(arch);
    let c_opts: Vec<CString> = options
        .iter()
        .map(|o| CString::new(o.as_str()).unwrap())
        .collect();
    let p_opts: Vec<*const c_char> = c_opts.iter().map(|c| c.as_ptr()).collect();
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: NUL-terminated strings that outlive the calls; the program is destroyed below.
    unsafe {
        let r = sys::nvrtcCreateProgram(
            &mut prog,
            c_src.as_ptr(),
            c_name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        );
        if r != sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(CollectError::Nvrtc(format!("nvrtcCreateProgram: {r:?}")));
        }
        let rc = sys::nvrtcCompileProgram(prog, p_opts.len() as i32, p_opts.as_ptr());
        let log = program_log(prog);
        let out = if rc != sys::nvrtcResult::NVRTC_SUCCESS {
            Err(CollectError::Compile {
                name: name.to_string(),
                log: format!("{rc:?} with {options:?}\n{log}"),
            })
        } else if cubin {
            let mut n = 0usize;
            let r = sys::nvrtcGetCUBINSize(prog, &mut n);
            if r != sys::nvrtcResult::NVRTC_SUCCESS || n == 0 {
                Err(CollectError::Nvrtc(format!(
                    "nvrtcGetCUBINSize: {r:?} (size {n})"
                )))
            } else {
                let mut image = vec![0u8; n];
                let r = sys::nvrtcGetCUBIN(prog, image.as_mut_ptr() as *mut c_char);
                if r != sys::nvrtcResult::NVRTC_SUCCESS {
                    Err(CollectError::Nvrtc(format!("nvrtcGetCUBIN: {r:?}")))
                } else {
                    Ok(Compiled {
                        name: name.to_string(),
                        image,
                        kind: "cubin".into(),
                        log,
                        options: options.clone(),
                    })
                }
            }
        } else {
            let mut n = 0usize;
            let r = sys::nvrtcGetPTXSize(prog, &mut n);
            if r != sys::nvrtcResult::NVRTC_SUCCESS || n == 0 {
                Err(CollectError::Nvrtc(format!("nvrtcGetPTXSize: {r:?}")))
            } else {
                let mut image = vec![0u8; n];
                let r = sys::nvrtcGetPTX(prog, image.as_mut_ptr() as *mut c_char);
                if r != sys::nvrtcResult::NVRTC_SUCCESS {
                    Err(CollectError::Nvrtc(format!("nvrtcGetPTX: {r:?}")))
                } else {
                    Ok(Compiled {
                        name: name.to_string(),
                        image,
                        kind: "ptx".into(),
                        log,
                        options: options.clone(),
                    })
                }
            }
        };
        sys::nvrtcDestroyProgram(&mut prog);
        out
    }
}

/// # Safety
/// `prog` must be a live NVRTC program.
unsafe fn program_log(prog: sys::nvrtcProgram) -> String {
    let mut n = 0usize;
    // SAFETY: per the caller, prog is live.
    unsafe {
        if sys::nvrtcGetProgramLogSize(prog, &mut n) != sys::nvrtcResult::NVRTC_SUCCESS || n <= 1 {
            return String::new();
        }
        let mut buf = vec![0u8; n];
        if sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr() as *mut c_char)
            != sys::nvrtcResult::NVRTC_SUCCESS
        {
            return String::new();
        }
        while buf.last() == Some(&0) {
            buf.pop();
        }
        String::from_utf8_lossy(&buf).trim().to_string()
    }
}
