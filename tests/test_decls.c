/* test_decls.c - gpukit declares the CUDA driver, NVRTC and cuBLASLt itself.
   This checks those declarations against the toolkit where one is installed
   (CI has it; users need not): every constant against cuda.h, and every
   exact symbol name (cuMemAlloc_v2 ...) against the real libraries (the
   driver's stub library exports the same names as the driver). */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"
#ifdef GKT_HAVE_CUDA_H
#include <cuda.h>
#include <nvrtc.h>
#include <cublasLt.h>
#define SAME(a, b) GKT_CHECK((long long)(a) == (long long)(b), "%s = %lld but the toolkit says %lld", #a, (long long)(a), (long long)(b))
#endif

int main(void) {
    char missing[128];
    gk__cu_api cu;
    gk__nvrtc_api nv;
    gk__cublaslt_api lt;
    gk__lib l;
    gkt_seed();
#ifdef GKT_HAVE_CUDA_H
    SAME(GK__CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY);
    SAME(GK__CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_NOT_INITIALIZED);
    SAME(GK__CUDA_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE);
    SAME(GK__CUDA_ERROR_INVALID_DEVICE, CUDA_ERROR_INVALID_DEVICE);
    SAME(GK__CU_EVENT_BLOCKING_SYNC, CU_EVENT_BLOCKING_SYNC);
    SAME(GK__CU_EVENT_DISABLE_TIMING, CU_EVENT_DISABLE_TIMING);
    SAME(GK__CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
    SAME(GK__CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR);
    SAME(GK__CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_RANGE_SIZE);
    SAME(GK__CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST);
    SAME(GK__CUDA_ERROR_STUB_LIBRARY, CUDA_ERROR_STUB_LIBRARY);
    SAME(GK__CUDA_ERROR_NOT_READY, CUDA_ERROR_NOT_READY);
    SAME(GK__CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NOT_FOUND);
    SAME(GK__CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    SAME(GK__CU_DEVICE_ATTRIBUTE_WARP_SIZE, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    SAME(GK__CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    SAME(GK__CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    SAME(GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    SAME(GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    SAME(GK__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    SAME(GK__CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    SAME(GK__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    SAME(GK__CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    SAME(GK__CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_NUM_REGS);
    SAME(GK__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    SAME(GK__CU_STREAM_NON_BLOCKING, CU_STREAM_NON_BLOCKING);
    SAME(GK__CU_EVENT_DEFAULT, CU_EVENT_DEFAULT);
    SAME(GK__CU_STREAM_CAPTURE_MODE_RELAXED, CU_STREAM_CAPTURE_MODE_RELAXED);
    SAME(GK__CU_STREAM_CAPTURE_STATUS_NONE, CU_STREAM_CAPTURE_STATUS_NONE);
    SAME(GK__CU_STREAM_CAPTURE_STATUS_ACTIVE, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    SAME(GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
    SAME(GK__CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
    SAME(GK__CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_INTERLEAVE_NONE);
    SAME(GK__CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_SWIZZLE_128B);
    SAME(GK__CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    SAME(GK__CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    SAME(sizeof(gk__cu_tensormap), sizeof(CUtensorMap));
    SAME(sizeof(gk__cu_ptr), sizeof(CUdeviceptr));
    SAME(sizeof(gk__cu_device), sizeof(CUdevice));
    SAME(sizeof(gk__cu_result), sizeof(CUresult));
    SAME(sizeof(gk__nvrtc_result), sizeof(nvrtcResult));
    /* cuBLASLt: values and struct layouts (wrong copies of these circulate) */
    SAME(GK__CUDA_R_32F, CUDA_R_32F); SAME(GK__CUDA_R_64F, CUDA_R_64F); SAME(GK__CUDA_R_16F, CUDA_R_16F); SAME(GK__CUDA_R_16BF, CUDA_R_16BF);
    SAME(GK__CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F); SAME(GK__CUBLAS_COMPUTE_64F, CUBLAS_COMPUTE_64F);
    SAME(GK__CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F_FAST_TF32);
    SAME(GK__CUBLAS_OP_N, CUBLAS_OP_N); SAME(GK__CUBLAS_OP_T, CUBLAS_OP_T);
    SAME(GK__LT_DESC_COMPUTE_TYPE, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE); SAME(GK__LT_DESC_SCALE_TYPE, CUBLASLT_MATMUL_DESC_SCALE_TYPE);
    SAME(GK__LT_DESC_TRANSA, CUBLASLT_MATMUL_DESC_TRANSA); SAME(GK__LT_DESC_TRANSB, CUBLASLT_MATMUL_DESC_TRANSB);
    SAME(GK__LT_DESC_EPILOGUE, CUBLASLT_MATMUL_DESC_EPILOGUE); SAME(GK__LT_DESC_BIAS_POINTER, CUBLASLT_MATMUL_DESC_BIAS_POINTER);
    SAME(GK__LT_DESC_BIAS_DATA_TYPE, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
    SAME(GK__LT_LAYOUT_BATCH_COUNT, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
    SAME(GK__LT_LAYOUT_STRIDED_BATCH_OFFSET, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
    SAME(GK__LT_PREF_MAX_WORKSPACE_BYTES, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
    SAME(GK__LT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_DEFAULT); SAME(GK__LT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_BIAS);
    SAME(GK__LT_EPILOGUE_GELU, CUBLASLT_EPILOGUE_GELU); SAME(GK__LT_EPILOGUE_GELU_BIAS, CUBLASLT_EPILOGUE_GELU_BIAS);
    SAME(sizeof(gk__lt_algo), sizeof(cublasLtMatmulAlgo_t));
    SAME(sizeof(gk__lt_heur), sizeof(cublasLtMatmulHeuristicResult_t));
    SAME(offsetof(gk__lt_heur, workspace_size), offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize));
    SAME(offsetof(gk__lt_heur, state), offsetof(cublasLtMatmulHeuristicResult_t, state));
#else
    printf("skip: cuda.h not available, constants not compared\n");
#endif
    l = gk__dlopen("/usr/local/cuda/lib64/stubs/libcuda.so");
    if (l) GKT_CHECK(gk__resolve_cu(l, &cu, missing, sizeof missing), "driver symbol %s missing", missing);
    else printf("skip: no stub libcuda\n");
    l = gk__dlopen("libnvrtc.so.13");
    if (!l) l = gk__dlopen("/usr/local/cuda/lib64/libnvrtc.so.13");
    if (l) {
        GKT_CHECK(gk__resolve_nvrtc(l, &nv, missing, sizeof missing), "NVRTC symbol %s missing", missing);
        GKT_CHECK(nv.GetSupportedArchs != NULL, "nvrtcGetSupportedArchs");
    } else printf("skip: no libnvrtc\n");
    l = gk__dlopen("libcublasLt.so.13");
    if (!l) l = gk__dlopen("/usr/local/cuda/lib64/libcublasLt.so.13");
    if (l) GKT_CHECK(gk__resolve_cublaslt(l, &lt, missing, sizeof missing), "cuBLASLt symbol %s missing", missing);
    else printf("skip: no libcublasLt\n");
    return gkt_done("test_decls");
}
