"""tools/gen_cdef.py: python/gpukit/_cdef.h follows the headers (make check-embed
fails when a public declaration changes and the cdef does not)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT


def run(tree, *args):
    return subprocess.run([sys.executable, os.path.join(tree, "tools", "gen_cdef.py")] + list(args),
                          capture_output=True, text=True)


@pytest.fixture
def tree(tmp_path):
    if shutil.which(os.environ.get("CPP_FOR_CDEF", "cc")) is None:
        pytest.skip("no C preprocessor")
    t = tmp_path / "t"
    (t / "tools").mkdir(parents=True)
    (t / "python" / "gpukit").mkdir(parents=True)
    for f in ("gpukit.h", "gpukit_llm.h"):
        shutil.copy(os.path.join(ROOT, f), t / f)
    shutil.copy(os.path.join(ROOT, "tools", "gen_cdef.py"), t / "tools")
    shutil.copy(os.path.join(ROOT, "python", "gpukit", "_cdef.h"), t / "python" / "gpukit")
    return str(t)


def test_cdef_in_step(tree):
    r = run(tree, "--check")
    assert r.returncode == 0, r.stderr


def test_cdef_follows_a_changed_declaration(tree):
    h = os.path.join(tree, "gpukit.h")
    text = open(h).read().replace("GKDEF gk_status gk_sync(gk_ctx *ctx);", "GKDEF gk_status gk_sync(gk_ctx *ctx, int flags);")
    with open(h, "w") as f:
        f.write(text)
    r = run(tree, "--check")
    assert r.returncode != 0 and "_cdef.h differs" in r.stderr
    assert run(tree).returncode == 0 and run(tree, "--check").returncode == 0
    with open(os.path.join(tree, "python", "gpukit", "_cdef.h")) as f:
        assert "gk_status gk_sync(gk_ctx *ctx, int flags);" in f.read()
        f.seek(0)
        assert "static inline" not in f.read()
