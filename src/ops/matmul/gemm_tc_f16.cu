// gemm_tc_f16.cu - tensor-core GEMM kernels for f16 inputs (the code: gk_gemm_tc.cuh)
#include "gk_gemm_tc.cuh"

// 16-bit: 128x256 (warp 64x64, 96 KiB in 4 stages, 1 block / SM) for large
// problems; 128x128 (warp 64x32, 64 KiB, 2 blocks / SM) when the large tile
// leaves SMs idle
GK_TC_LAYOUTS(f16, GK_DT_f16, 128, 256, 32, 4, 1)
GK_TC_LAYOUTS(f16, GK_DT_f16, 128, 128, 32, 4, 2)
