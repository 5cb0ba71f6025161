#!/bin/bash
# The median fit over every GPU of crates/calibrate/data and one fit per GPU left out,
# all at once (each fit keeps only a few cores busy: on the device's 16 cores the 14 fits
# take about 4 minutes together). Run from the repository root:
#
#   bash crates/calibrate/scripts/fit-all.sh SMSIM OUT_DIR [GPU ...]
#
# writes OUT_DIR/h100.toml and OUT_DIR/median-no-GPU.toml (never over an existing file),
# with each fit's log beside it. Without GPUs: every GPU that has a leave-out profile in
# crates/calibrate/report/loo/. Then, to take them:
#
#   cp OUT_DIR/h100.toml crates/sim-core/profiles/h100.toml
#   cp OUT_DIR/median-no-*.toml crates/calibrate/report/loo/
#   smsim calibrate across --leave-one-out crates/calibrate/report/loo --out FILE
set -u
S=${1:?path to the smsim binary}
F=${2:?output folder}
shift 2
GPUS="$*"
if [ -z "$GPUS" ]; then
  GPUS=$(ls crates/calibrate/report/loo/ | sed -n 's/^median-no-\(.*\)\.toml$/\1/p')
fi
mkdir -p "$F"
pids=()
( "$S" calibrate fit --quiet --out "$F/h100.toml" > "$F/all.log" 2>&1; echo "rc=$?" >> "$F/all.log" ) &
pids+=($!)
for g in $GPUS; do
  ( "$S" calibrate fit --quiet --leave-out "$g" --out "$F/median-no-$g.toml" > "$F/no-$g.log" 2>&1; echo "rc=$?" >> "$F/no-$g.log" ) &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
tail -qn 2 "$F"/*.log
grep -L '^rc=0$' "$F"/*.log && status=1
exit $status
