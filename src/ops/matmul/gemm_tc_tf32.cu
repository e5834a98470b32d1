// gemm_tc_tf32.cu - tensor-core GEMM kernels for f32 inputs as TF32, used only
// with allow_tf32 (the code: gk_gemm_tc.cuh). 128x128x32, 3 stages of 32 KiB.
#include "gk_gemm_tc.cuh"

GK_TC_LAYOUTS(tf32, GK_DT_f32, 128, 128, 32, 3, 1)
