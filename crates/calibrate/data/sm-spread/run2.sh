set -u
cd .device/lead
nvidia-smi -q > $OUT/nvidia-smi-q.txt
grep -m1 "GPU UUID" $OUT/nvidia-smi-q.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv > $OUT/clocks-before.txt
nvcc -O3 -arch=sm_90a -o smchase smchase.cu && ./smchase > $OUT/smchase.txt
gzip -dc cc.gz > /tmp/cc; chmod +x /tmp/cc
lib=$(find /usr /opt -name 'libnvrtc.so.13*' 2>/dev/null | head -1)
[ -n "$lib" ] && export LD_LIBRARY_PATH="$(dirname "$lib"):${LD_LIBRARY_PATH:-}"
mkdir -p /tmp/c
timeout 200 /tmp/cc --out-dir /tmp/c 2> $OUT/collect.log; echo "rc=$?" >> $OUT/collect.log
cp /tmp/c/*.json $OUT/
./smchase > $OUT/smchase2.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv > $OUT/clocks-after.txt
grep single $OUT/smchase.txt | head -2; tail -2 $OUT/collect.log
