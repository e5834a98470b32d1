#!/usr/bin/env bash
# issue 27 on the GPU machine (called by tools/gpu_check.sh with the output
# folder as $1): the Python package on CUDA.
#  1. pytest tests/python on the CUDA backend, with the portable Python 3.11
#     of ../shared/tools/device-python.sh (cffi, numpy, pytest) in .devpy/
#  2. bench/python_overhead.py with the machine's own python3 (PyTorch and
#     CuPy), cffi built for it by ../shared/tools/device-cffi312.sh from .cffi/:
#     per-call overhead against both, a large GEMM, interop checks
# Both use the wheel that `make test-python` leaves in build/pywheel (an abi3
# wheel: the same file serves 3.11 and 3.12); carry build/pywheel, .devpy and
# .cffi. A part whose pieces are missing is skipped, saying which.
OUT=${1:-build/gpu-out}
mkdir -p "$OUT"
whl=$(ls build/pywheel/gpukit-*.whl 2>/dev/null | head -n 1)
[ -n "$whl" ] || { echo "python: no wheel in build/pywheel (run make test-python here and carry build/pywheel)"; exit 1; }
rm -rf /tmp/gkpy && python3 -m zipfile -e "$whl" /tmp/gkpy || { echo "python: cannot unpack $whl"; exit 1; }
res=""

# 1. pytest on CUDA
if [ -f .devpy/py311.tgz ]; then
  mkdir -p /tmp/py && tar xzf .devpy/py311.tgz -C /tmp/py
  ( cd tests/python && GPUKIT_BACKEND=cuda PYTHONPATH=/tmp/gkpy /tmp/py/run-python.sh -m pytest -q -p no:cacheprovider \
      --junitxml="$OUT/pytest-python.xml" . ) > "$OUT/pytest-python.log" 2>&1
  res="pytest (CUDA): $(tail -n 1 "$OUT/pytest-python.log")"
  tail -n 30 "$OUT/pytest-python.log"
else
  res="pytest: skipped (no .devpy/py311.tgz: ../shared/tools/device-python.sh makes it)"
fi

# 2. the overhead benchmark beside PyTorch and CuPy
if [ -d .cffi ]; then
  eval "$(bash .cffi/device-cffi312.sh build .cffi)"
  stamp=$(date -u +%Y%m%d)
  PYTHONPATH=/tmp/gkpy${PYTHONPATH:+:$PYTHONPATH} python3 bench/python_overhead.py --json "$OUT/python_overhead.json" \
    > "$OUT/python_overhead.log" 2>&1
  rc=$?
  cat "$OUT/python_overhead.log"
  [ $rc -eq 0 ] && mkdir -p bench/results && cp "$OUT/python_overhead.json" "bench/results/python_overhead-$stamp.json"
  res="$res; $(grep '^python_overhead:' "$OUT/python_overhead.log" | cut -c1-200) rc=$rc"
else
  res="$res; overhead bench: skipped (no .cffi: ../shared/tools/device-cffi312.sh fetch .cffi)"
fi
echo "python: $res"
