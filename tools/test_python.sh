#!/bin/sh
# The Python package's check (make test-python): builds and installs
# python/ as a user would, offline, into a fresh virtual environment that sees
# the system's cffi, setuptools, wheel, numpy and pytest (Debian's
# python3-cffi ...), checks the wheel holds nothing of CUDA, then runs
# tests/python with pytest on the installed package. Prints one line
# "test_python: N passed, M failed" (tools/run_tests.sh keeps it).
#   PYTHON=...         the interpreter (default /usr/bin/python3 when present)
#   PYTEST_ARGS=...    extra pytest arguments (-k ..., -x)
set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3 )}
VENV=build/pyenv
WHEELS=build/pywheel
fail() { echo "test_python: $1"; echo "test_python: 0 passed, 1 failed"; exit 1; }

"$PY" tools/gen_cdef.py --check || fail "python/gpukit/_cdef.h is stale"
# a fresh venv and wheel; the build folder keeps the extension (rebuilt when the headers change: gpukit_build.py
# lists them as dependencies) but not the package files a rename may have left there
rm -rf "$VENV" "$WHEELS" python/build/bdist.* python/build/lib.*/gpukit/*.py python/build/lib.*/gpukit/*.pyi
"$PY" -m venv --system-site-packages "$VENV" || fail "python3 -m venv failed (Debian: apt-get install python3-venv)"
"$VENV/bin/python" -c "import cffi, setuptools, wheel, numpy, pytest" 2>/dev/null ||
  fail "needs cffi, setuptools, wheel, numpy and pytest (Debian: python3-cffi python3-setuptools python3-wheel python3-numpy python3-pytest python3-venv python3-pip python3-dev)"
t0=$(date +%s)
"$VENV/bin/pip" install -q --no-build-isolation --no-index ./python || fail "pip install --no-build-isolation --no-index ./python failed"
"$VENV/bin/pip" wheel -q --no-build-isolation --no-index --no-deps -w "$WHEELS" ./python || fail "pip wheel failed"
echo "test_python: install and wheel in $(( $(date +%s) - t0 )) s"
"$VENV/bin/python" tools/gen_ops_stub.py --check || fail "python/gpukit/ops.pyi is stale"
# the wheel: gpukit's Python files and one extension that links no CUDA library
"$VENV/bin/python" - "$WHEELS" <<'EOF' || fail "the wheel is not what it should be"
import glob, subprocess, sys, tempfile, zipfile
whl = glob.glob(sys.argv[1] + "/gpukit-*.whl")
assert len(whl) == 1, whl
names = zipfile.ZipFile(whl[0]).namelist()
bad = [n for n in names if any(s in n.lower() for s in ("cuda", "nvrtc", "cublas"))]
assert not bad, "CUDA files in the wheel: %s" % bad
import os
src = sorted("gpukit/" + f for f in os.listdir("python/gpukit") if f.endswith((".py", ".pyi")) or f == "py.typed")
got = sorted(n for n in names if n.startswith("gpukit/") and not n.endswith(".so"))
assert got == src, "the wheel's package files differ from python/gpukit: %s" % sorted(set(got) ^ set(src))
exts = [n for n in names if n.endswith(".so")]
assert exts == ["gpukit/_gpukit.abi3.so"], exts
with tempfile.TemporaryDirectory() as d:
    so = zipfile.ZipFile(whl[0]).extract(exts[0], d)
    dyn = subprocess.run(["readelf", "-d", so], capture_output=True, text=True).stdout
    needed = [l.split("[")[1].rstrip("]") for l in dyn.splitlines() if "(NEEDED)" in l]
    allowed = ("libc.so", "libm.so", "libdl.so", "libpthread.so", "ld-linux")
    assert all(n.startswith(allowed) for n in needed), "the extension links %s" % needed
print("test_python: wheel %s: %d files, the extension needs only %s" % (whl[0].split("/")[-1], len(names), ", ".join(needed)))
EOF
# the tests import the installed package (tests/python has no gpukit folder beside it)
cd tests/python || exit 1
"../../$VENV/bin/python" -X dev -X faulthandler -m pytest -q -p no:cacheprovider --junitxml=../../build/pytest-python.xml ${PYTEST_ARGS:-} .
code=$?
cd ../..
"$VENV/bin/python" - <<'EOF'
import xml.etree.ElementTree as ET
try:
    r = ET.parse("build/pytest-python.xml").getroot()
    s = r if r.tag == "testsuite" else r.find("testsuite")
    t, f, e, k = (int(s.get(x, 0)) for x in ("tests", "failures", "errors", "skipped"))
    print("test_python: %d passed, %d failed (%d skipped)" % (t - f - e - k, f + e, k))
except Exception as ex:  # no report: pytest itself failed
    print("test_python: 0 passed, 1 failed (%s)" % ex)
EOF
exit $code
