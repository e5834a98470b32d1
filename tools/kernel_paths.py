#!/usr/bin/env python3
"""Prints the (arch, module) compiles that cover every kernel source path once,
as make targets ck.<arch>.<module> for `make check-kernels-paths`.

A kernel module's source differs between archs only where it, or a header it
includes, tests __CUDA_ARCH__ / __CUDA_ARCH_FEAT_*. The branches of the shared
header gk_common.cuh (the PDL helpers) are covered by the modules that branch
themselves. So:
  - a module with no branch of its own compiles once, for sm_80: the oldest
    supported arch is the strictest (an instruction newer than 8.0 used
    without a guard fails there);
  - a module that branches on __CUDA_ARCH__ compiles for sm_80 and sm_90;
  - one that branches on a feature macro (sm_90a) also for sm_120, where the
    macro is absent (gk__mod_arch builds such modules for sm_90a on 9.0).
`make check-kernels` still compiles every module for every arch."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = {"gk_common.cuh"}
# the slowest compiles go first, so that make -j ends with short jobs (an
# ordering hint only: the tensor-core GEMM modules take minutes in NVRTC)
SLOW_FIRST = ["gemm_tc.cu", "gemm_tc_f16.cu", "gemm_tc_tf32.cu", "gemm_f32.cu", "elementwise.cu", "gemm.cu"]


def sources():
    found = {}
    for d, _, names in os.walk(os.path.join(ROOT, "src")):
        for n in names:
            if n.endswith((".cu", ".cuh")):
                found[n] = os.path.join(d, n)
    return found


def text_with_includes(name, files, seen):
    if name in seen or name not in files:
        return ""
    seen.add(name)
    with open(files[name], encoding="utf-8") as fh:
        text = fh.read()
    out = "" if name in SHARED else text
    for inc in re.findall(r'#include\s+"([^"]+)"', text):
        out += text_with_includes(os.path.basename(inc), files, seen)
    return out


def main():
    files = sources()
    jobs = []
    mods = sorted(n for n in files if n.endswith(".cu"))
    mods = [m for m in SLOW_FIRST if m in mods] + [m for m in mods if m not in SLOW_FIRST]
    for m in mods:
        text = text_with_includes(m, files, set())
        archs = ["sm_80"]
        if "__CUDA_ARCH" in text:
            archs.append("sm_90")
        if "__CUDA_ARCH_FEAT" in text:
            archs.append("sm_120")
        jobs += ["ck.%s.%s" % (a, m) for a in archs]
    print(" ".join(jobs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
