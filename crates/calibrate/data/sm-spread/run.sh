set -e
cd .device/lead
nvidia-smi -q | grep -E "GPU UUID|Serial Number|Driver Version" > $OUT/env.txt
nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >> $OUT/env.txt
nvcc -O3 -arch=sm_90a -o smchase smchase.cu
./smchase > $OUT/smchase.txt
cuobjdump -sass smchase | grep -A40 "chase" | grep -E "LDG|CS2R|S2UR|CLOCK" | head -20 > $OUT/sass.txt || true
tail -8 $OUT/smchase.txt
