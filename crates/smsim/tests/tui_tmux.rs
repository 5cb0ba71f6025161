//! `smsim tui` in a real terminal: tmux runs the binary in a pseudo-terminal, the test
//! sends keys and reads the screen, and checks that the terminal is restored after.
//! Skipped (with the reason printed) where tmux is not installed.

use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of the test's own (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// Waits until the screen shows `what` (at most 20 s), and returns the screen.
    fn wait_for(&self, what: &str) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(what) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the screen never showed {what:?}; it shows:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn keys(&self, k: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(k);
        assert!(self.cmd(&args).status.success());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// `smsim tui ARGS` in a tmux session of its own at 100x30 (None where tmux is not
/// installed). After the viewer quits, the shell prints its exit status and whether
/// the terminal is back in canonical mode with echo (raw mode turns both off).
fn start(name: &str, args: &str) -> Option<Tmux> {
    start_with(name, "", args)
}

/// [`start`] with `env` (`NAME=VALUE ...`) set for smsim.
fn start_with(name: &str, env: &str, args: &str) -> Option<Tmux> {
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("skipped: tmux is not installed");
        return None;
    }
    let bin = env!("CARGO_BIN_EXE_smsim");
    let t = Tmux {
        socket: format!("smsim-tui-{name}-{}", std::process::id()),
    };
    let script = format!(
        "{env} '{bin}' tui {args}; echo \"exit=$?\"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo; sleep 60"
    );
    let out = t.cmd(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "100",
        "-y",
        "30",
        "sh",
        "-c",
        &script,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(t)
}

/// Waits for the viewer to end; checks it ended with status 0 and left the terminal
/// as it found it (canonical mode, echo, the main screen).
fn check_restored(t: &Tmux) {
    check_restored_with(t, 0);
}

/// [`check_restored`] for a viewer that ends with status `code`; the screen after.
fn check_restored_with(t: &Tmux, code: i32) -> String {
    // stty's line comes after the exit status: wait for it, not for the status alone.
    let after = t.wait_for("icanon");
    assert!(after.contains(&format!("exit={code}")), "{after}");
    let modes = after
        .lines()
        .find(|l| l.contains("icanon"))
        .expect("stty's modes printed");
    assert!(
        modes.split_whitespace().any(|m| m == "icanon")
            && modes.split_whitespace().any(|m| m == "echo"),
        "the terminal is left raw: {modes}"
    );
    assert!(
        !after.contains("smsim tui │"),
        "the alternate screen is left: {after}"
    );
    after
}

#[test]
fn tui_starts_answers_keys_and_restores_the_terminal() {
    let Some(t) = start("keys", "gemm-mainloop/ws") else {
        return;
    };
    // (The simulation's progress may come first: wait for the viewer's rows.)
    let first = t.wait_for("consumer");
    assert!(first.contains("gemm-mainloop/ws"), "{first}");
    // `?` opens the help; any key closes it.
    t.keys(&["?"]);
    t.wait_for("smsim tui keys");
    // (Not Escape: a key sent right after it would read as Alt+key.)
    t.keys(&["x"]);
    // Zoom in once: the title's cycles per column halve (the fit: the run's cycles over
    // 80 columns, rounded up; 67079 cycles are 839 per column, zoomed in 419).
    let before = t.wait_for("/col");
    let number = |after: &str, until: &str| -> u64 {
        before
            .split(after)
            .nth(1)
            .and_then(|x| x.split(until).next())
            .and_then(|x| x.trim().parse().ok())
            .unwrap_or_else(|| panic!("no `{after}N{until}` in {before}"))
    };
    let per_col = number(" at ", "/col");
    assert_eq!(
        per_col,
        number("gemm-mainloop/ws: ", " cycles").div_ceil(80),
        "{before}"
    );
    t.keys(&["+"]);
    t.wait_for(&format!("at {}/col", per_col / 2));
    // Move the cursor and read the detail pane.
    t.keys(&["Right", "Right"]);
    t.wait_for(&format!("cursor {}", per_col / 2 * 2));
    // A smaller terminal: the frame is redrawn to its size, the status line last.
    assert!(
        t.cmd(&["resize-window", "-t", "t", "-x", "80", "-y", "24"])
            .status
            .success()
    );
    let start = Instant::now();
    loop {
        let s = t.screen();
        let lines: Vec<&str> = s.lines().collect();
        if lines.len() == 24 && lines[23].starts_with("? help") {
            assert!(lines.iter().all(|l| l.chars().count() <= 80), "{s}");
            assert!(
                s.contains(&format!("at {}/col", per_col / 2)),
                "the zoom survives the resize: {s}"
            );
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no redraw at 80x24: {s}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    t.keys(&["q"]);
    check_restored(&t);
}

/// The screen with its escape sequences (colours, bold...).
fn screen_with_escapes(t: &Tmux) -> String {
    String::from_utf8_lossy(&t.cmd(&["capture-pane", "-p", "-e", "-t", "t"]).stdout).into_owned()
}

#[test]
fn no_color_turns_the_colours_off() {
    // SGR colour codes: foreground 30-37, 90-97, 38;..., background 40-47, 48;...
    let coloured = |s: &str| {
        s.split('\x1b')
            .filter_map(|p| p.strip_prefix('[')?.split_once('m').map(|x| x.0))
            .flat_map(|codes| codes.split(';').map(str::to_string).collect::<Vec<_>>())
            .any(|c| {
                c.parse::<u32>()
                    .is_ok_and(|n| (30..=48).contains(&n) || (90..=107).contains(&n))
            })
    };
    for (env, want) in [("", true), ("NO_COLOR=1", false)] {
        let Some(t) = start_with(&format!("color{}", want as u8), env, "gemm-mainloop/ws") else {
            return;
        };
        t.wait_for("consumer");
        let s = screen_with_escapes(&t);
        assert_eq!(coloured(&s), want, "{env:?}: {s:?}");
        if !want {
            // Without colour a state is a letter: the producer spins in its
            // try_wait, `long_scoreboard` as Nsight names it (`l`).
            assert!(t.screen().contains("llll"), "{}", t.screen());
        }
        t.keys(&["q"]);
        check_restored(&t);
    }
}

#[test]
fn a_kernel_error_is_printed_on_the_normal_screen() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/broken/syntax_error.smk"
    );
    let Some(t) = start("error", &format!("'{file}'")) else {
        return;
    };
    let after = check_restored_with(&t, 1);
    assert!(after.contains("syntax_error.smk:"), "{after}");
    assert!(after.contains('^'), "the caret under the error: {after}");
}

#[test]
fn a_long_first_simulation_shows_itself_so_far_and_q_stops_it() {
    // The seed's problem: millions of warp-instructions, seconds to simulate in a
    // test build. Its first frame comes while it simulates, says it is partial,
    // answers keys and fills in.
    let Some(t) = start(
        "long",
        "singe-viscosity/data-parallel --param SPECIES=52 --param POINTS=262144",
    ) else {
        return;
    };
    // tmux may capture the frame half painted (the title before the status line),
    // so wait for the status line's hint, which only a partial frame shows.
    t.wait_for("PARTIAL, simulating: cycle ");
    let s = t.wait_for("what-ifs once it ends");
    let title = |s: &str| s.lines().next().unwrap_or("").to_string();
    let first = title(&s);
    // At 100 columns the progress (its cycle counts grow a digit in a fast build)
    // pushes the kernel's name past the edge: match only what always fits.
    assert!(first.contains("/8 CTAs │ smsim tui │ singe-visc"), "{s}");
    // Keys work while it simulates: z zooms to one cycle per column, at once (the
    // simulation hands the run so far over at its next poll).
    t.keys(&["z"]);
    let start = Instant::now();
    let later = loop {
        let s = t.screen();
        // The ruler at one cycle per column: a label every 12 columns, 12 cycles on.
        let ruler = s.lines().nth(1).unwrap_or("");
        if title(&s).starts_with(" PARTIAL") && ruler.contains("|12 ") {
            break title(&s);
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "z never applied: {s}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // `simulating: cycle 1,234,567 of ~...` or `cycle 1,234,567, 0/8 CTAs`.
    let cycle = |t: &str| -> u64 {
        let n = t.split("cycle ").nth(1).unwrap_or("");
        n.chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .filter(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap_or(0)
    };
    assert!(cycle(&later) > cycle(&first), "{first}\n{later}");
    let asked = Instant::now();
    t.keys(&["q"]);
    check_restored(&t);
    // The run stops at the engine's next poll, not at its end.
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
}
