"""Port costs against the probes beside the tensor core (compare.py's figures): prints each
setting's errors on the softmax parts and the throughput probes."""
import itertools, subprocess, sys
rows = []
grid = dict(fma_port_beside_tensor_cycles=[1, 2], alu_port_beside_tensor_cycles=[2, 3, 4],
            mufu_port_beside_tensor_cycles=[4, 6, 8, 10], alu_beside_tensor_cycles=[2], fma_tensor_cycles=[1, 0])
for vals in itertools.product(*grid.values()):
    sets = sum((["--set", f"{k}={v}"] for k, v in zip(grid, vals)), [])
    out = subprocess.run(["python3", "compare.py"] + sets, capture_output=True, text=True).stdout.splitlines()[1:]
    errs = {l.split()[0]: float(l.split()[-1].rstrip('%')) for l in out}
    smx = [errs[k] for k in errs if k.startswith("smx")]
    score = max(abs(e) for e in smx)
    print(vals, f"max|smx| {score:5.1f}", " ".join(f"{k.split('.')[-1]}:{errs[k]:+.0f}" for k in errs if k.startswith(("smx", "tp"))), flush=True)
