#!/bin/bash
# The engine's side of pppath.cu (README, "The ping-pong loop's path, one warp"): each twin's
# cycles a trip, (T(320) - T(64)) / 256, on the h100 profile; extra arguments go to
# `smsim run` (`--set lat_mbarrier_probe=41`). Run from the repository root after
# `cargo build --release -p smsim`.
set -e
S=${SMSIM:-target/release/smsim}
D=$(dirname "$0")/pppath_twins
T=$(mktemp -d)
for k in "$D"/*.k; do
  n=$(basename "$k" .k)
  for N in 64 320; do sed "s/{N}/$N/" "$k" > "$T/${n}_$N.k"; done
  a=$("$S" run -q "$T/${n}_64.k" "$@" | awk '/^Time/{print $2}')
  b=$("$S" run -q "$T/${n}_320.k" "$@" | awk '/^Time/{print $2}')
  echo "$n: $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", (b - a) / 256}') cycles a trip"
done
rm -r "$T"
