#!/bin/bash
# Fuzzes smsim for $1 seconds (default 190) with 14 processes, each its own seed: 5
# fuzz_text (parser, validator, printer), 4 fuzz_text_sim (the same, then the engine
# with the race checker on), 2 fuzz (mutated kernels through the engine), 1 fuzz
# --profile (edge profile values), 2 fuzz_cli (the command line).
# Run from the repository root, with bins.tar.xz beside this script holding the
# stripped release binaries fuzz_text, fuzz_text_sim, fuzz, smsim and fuzz_cli (the
# test binary of crates/smsim/tests/fuzz_cli.rs); the summaries and every failing case
# go into $OUT (summary.txt, logs.tgz). How it was run: docs/fuzz/README.md.
T=${1:-190}
R=$(cd "$(dirname "$0")" && pwd)
W=/tmp/fz; rm -rf $W; mkdir -p $W
B=/tmp/fzbin; rm -rf $B; mkdir -p $B; tar xJf $R/bins.tar.xz -C $B; chmod +x $B/*; R=$B
for s in 1 2 3 4 5; do (cd $W && mkdir -p t$s && cd t$s && $R/fuzz_text $((1000+s)) 1000000000 $T > ../text-$s.log 2>&1) & done
for s in 1 2 3 4; do (cd $W && mkdir -p s$s && cd s$s && $R/fuzz_text_sim $((2000+s)) 1000000000 $T > ../textsim-$s.log 2>&1) & done
for s in 1 2; do (cd "$PWD" && $R/fuzz $((3000+s)) 1000000000 $T > $W/engine-$s.log 2>&1) & done
(cd "$PWD" && $R/fuzz 3003 1000000000 $T --profile > $W/engine-profile.log 2>&1) &
for s in 1 2; do (SMSIM_BIN=$R/smsim SMSIM_FUZZ_ROOT=$PWD SMSIM_FUZZ_SEED=$((4000+s)) SMSIM_FUZZ_CASES=100000000 SMSIM_FUZZ_SECONDS=$T $R/fuzz_cli --nocapture --test-threads=1 > $W/cli-$s.log 2>&1) & done
wait
cp -r target/fuzz $W/engine-cases 2>/dev/null
{ nvidia-smi -q | grep -E "GPU UUID|Driver Version" ; nproc; date -u
  for f in $W/*.log; do echo "== $(basename $f)"; grep -E "seed .*cases|fuzz_cli seed|test result|problems|FAILED|panicked" $f | tail -4; done; } > $OUT/summary.txt
tar czf $OUT/logs.tgz -C $W . 2>/dev/null
cat $OUT/summary.txt
