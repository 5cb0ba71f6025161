#!/bin/bash
# How h100-20261128T035455Z-* was made. The device machine copies the lead's checkout, not
# an engineer's worktree, so the source went inline: comments and blank lines stripped
# from arrive_rb.cu (the kernels and host code unchanged), gzip -9, base64, in the call:
#   cd /tmp && echo <base64> | base64 -d | gunzip > a.cu && export PATH=$PATH:/usr/local/cuda/bin \
#     && nvcc -O3 -arch=sm_90a -o arb a.cu 2>&1 | tail -5; ./arb | tee $OUT/arrive_rb.txt; \
#     cuobjdump -sass arb > $OUT/sass.txt; (date -u; nvidia-smi -q) > $OUT/env.txt; \
#     nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >> $OUT/env.txt
# The same from a folder holding arrive_rb.cu: bash run.sh OUTDIR
set -u
export PATH="$PATH:/usr/local/cuda/bin"
D=${1:?out}
nvcc -O3 -arch=sm_90a -o /tmp/arb arrive_rb.cu 2>&1 | tail -5
/tmp/arb | tee "$D/arrive_rb.txt"
cuobjdump -sass /tmp/arb > "$D/sass.txt"
(date -u; nvidia-smi -q) > "$D/env.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >> "$D/env.txt"
