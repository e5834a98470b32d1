"""Rewrites the signal kernels for the CPU emulator (tests/signal_emu/emu.h): prep.py SRC DST
(SRC: the src/ folder of the source tree)."""
import re, sys, os
src = sys.argv[1]; dst = sys.argv[2]
for rel in ["kernels/gk_common.cuh", "ops/signal/fft.cu", "ops/signal/conv.cu", "ops/signal/lstm.cu"]:
    name = os.path.basename(rel)
    s = open(os.path.join(src, rel)).read()
    s = s.replace('asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(h));', 'f = (float)std::bit_cast<_Float16>(h);')
    s = s.replace('asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(h) : "f"(f));', 'h = std::bit_cast<unsigned short>((_Float16)f);')
    s = s.replace('asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");', '__atomic_store_n(p, v, __ATOMIC_RELEASE);')
    s = s.replace('asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");', 'v = __atomic_load_n(p, __ATOMIC_ACQUIRE);')
    s = re.sub(r'extern __shared__ (\w+) (\w+)\[\];', r'\1 *\2 = (\1 *)emu_dyn_smem;', s)
    s = s.replace('__shared__', 'static')
    assert 'asm' not in s.replace('// ', ''), name
    open(os.path.join(dst, name), "w").write(s)
