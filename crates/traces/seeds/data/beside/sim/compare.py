"""The twins (from_sass.py) against the measured probes: `python3 compare.py [--set k=v ...]`.
Measured: alone from run-20261127T1609Z (beside.cu, TM 0; the probe bodies are the
same source), beside from run-20261127T1615Z (beside2.cu, TM 1). Cycles a body."""
import json, statistics, subprocess, sys
from from_sass import PROBES

SMSIM = "../../../../../../target/release/smsim"


def summary(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) == 8 and f[1].isdigit():
            out[(f[0], int(f[1]))] = float(f[3])
    return out


def unroll(fn):
    return int(open(fn).readline().split("=")[1])


def finished(fn, extra):
    r = subprocess.run([SMSIM, "run", fn, "--json", "--no-path", "--quiet"] + extra, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    d = json.loads(r.stdout)
    return statistics.median(w["finished"] for w in d["warps"] if w["warp"] >= 8)


if __name__ == "__main__":
    extra = sys.argv[1:]
    alone = summary("../run-20261127T1609Z/summary.txt")
    beside = summary("../run-20261127T1615Z/summary.txt")
    print(f"{'probe':16} {'alone':>8} {'smsim':>8} {'err':>7}   {'beside':>8} {'smsim':>8} {'err':>7}")
    for name in PROBES:
        stem = f"probe_{name.replace('.', '_').replace('>', '_').replace('|', '_')}"
        row = [name]
        for tm, meas in ((0, alone), (1, beside)):
            a, b = f"{stem}_t{tm}a.smk", f"{stem}_t{tm}b.smk"
            s = (finished(b, extra) - finished(a, extra)) / (16 * unroll(a))
            m = meas[(name, tm)]
            row += [m, s, (s - m) / m * 100]
        print(f"{row[0]:16} {row[1]:8.1f} {row[2]:8.1f} {row[3]:+6.1f}%   {row[4]:8.1f} {row[5]:8.1f} {row[6]:+6.1f}%")
