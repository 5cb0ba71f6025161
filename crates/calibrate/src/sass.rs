//! Reading `cuobjdump -sass` dumps: a function's instructions with the stall count of
//! each control code, and a twin's line carrying that count. The microbenchmark twins and
//! the validation twins both take their loops from here.

/// The stall count in a SASS instruction's control code: bits 41 to 44 of its second
/// 64-bit word (Volta and later encode, from bit 41 up: the stall count in 4 bits, the
/// yield flag, the write and read scoreboard indices, the wait mask, the reuse flags).
pub fn control_stall(hi: u64) -> u8 {
    ((hi >> 41) & 0xf) as u8
}

/// A function's instructions in a `cuobjdump -sass` dump: (address, text without `;`,
/// the control code's stall count). Each instruction's line carries its first 64-bit
/// word; the next line carries the second, with the control code.
pub fn sass_listing(dump: &str, func: &str) -> Vec<(u64, String, u8)> {
    let mut out: Vec<(u64, String, u8)> = Vec::new();
    let mut inside = false;
    let mut lines = dump.lines().peekable();
    while let Some(line) = lines.next() {
        if line.contains("Function : ") {
            inside = line.trim().ends_with(&format!("Function : {func}"));
            continue;
        }
        if !inside {
            continue;
        }
        let (Some(a), Some(b)) = (line.find("/*"), line.find("*/")) else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(line[a + 2..b].trim(), 16) else {
            continue;
        };
        let Some(end) = line.rfind(';') else { continue };
        let hi = lines.peek().and_then(|next| {
            let h = next.trim().strip_prefix("/* 0x")?.strip_suffix("*/")?;
            u64::from_str_radix(h.trim(), 16).ok()
        });
        out.push((
            addr,
            line[b + 2..end].trim().to_string(),
            hi.map_or(1, control_stall),
        ));
    }
    out
}

/// A twin's instruction line with the SASS instruction's stall count (`stall=`, before
/// any trailing comment); a count of 0 or 1 is the engine's own pace and is left out.
pub fn with_stall(line: &str, stall: u8) -> String {
    if stall <= 1 {
        return line.to_string();
    }
    let (code, comment) = match line.find("  #") {
        Some(p) => (&line[..p], &line[p..]),
        None => (line, ""),
    };
    let code = code.trim_end();
    // A bare mnemonic (with its guard) takes the key as its first operand.
    let operands = code
        .split_whitespace()
        .filter(|w| !w.starts_with('@'))
        .count()
        > 1;
    let sep = if operands { ", " } else { " " };
    format!("{code}{sep}stall={stall}{comment}")
}
