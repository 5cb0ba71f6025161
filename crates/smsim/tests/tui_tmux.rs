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
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("skipped: tmux is not installed");
        return None;
    }
    let bin = env!("CARGO_BIN_EXE_smsim");
    let t = Tmux {
        socket: format!("smsim-tui-{name}-{}", std::process::id()),
    };
    let script = format!(
        "'{bin}' tui {args}; echo \"exit=$?\"; stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo; sleep 60"
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
    // stty's line comes after the exit status: wait for it, not for the status alone.
    let after = t.wait_for("icanon");
    assert!(after.contains("exit=0"), "{after}");
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
    // Zoom in once: the title's cycles per column halve (the fit at 80 columns of
    // 67143 cycles is 840 per column; zoomed in, 420).
    let before = t.wait_for("/col");
    assert!(before.contains("at 840/col"), "{before}");
    t.keys(&["+"]);
    t.wait_for("at 420/col");
    // Move the cursor and read the detail pane.
    t.keys(&["Right", "Right"]);
    t.wait_for("cursor 840");
    t.keys(&["q"]);
    check_restored(&t);
}

#[test]
fn a_long_first_simulation_shows_progress_and_q_stops_it() {
    // The seed's problem: millions of warp-instructions, seconds to simulate in a
    // test build.
    let Some(t) = start(
        "long",
        "singe-viscosity/data-parallel --param SPECIES=52 --param POINTS=262144",
    ) else {
        return;
    };
    let s = t.wait_for("CTAs done");
    assert!(
        s.contains("smsim tui │ simulating singe-viscosity/data-parallel"),
        "{s}"
    );
    assert!(s.contains("of 8 CTAs done"), "{s}");
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
