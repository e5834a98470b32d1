/* ------------------------------------------------------------------------ */
/* >>cuda_decls
   Our own declarations of the few CUDA driver, NVRTC and cuBLASLt types,
   constants and entry points gpukit uses (checked against the toolkit's
   headers by tests/test_decls.c). Names carry the gk__ prefix so a program
   may include cuda.h in the same file. */
typedef int gk__cu_result;
typedef int gk__cu_device;
typedef unsigned long long gk__cu_ptr;
typedef struct gk__cu_ctx_st *gk__cu_ctx;
typedef struct gk__cu_mod_st *gk__cu_module;
typedef struct gk__cu_func_st *gk__cu_function;
typedef struct gk__cu_stream_st *gk__cu_stream;
typedef struct gk__cu_event_st *gk__cu_event;
typedef struct gk__cu_graph_st *gk__cu_graph;
typedef struct gk__cu_graphexec_st *gk__cu_graph_exec;

enum {
    GK__CUDA_SUCCESS = 0,
    GK__CUDA_ERROR_OUT_OF_MEMORY = 2,
    GK__CUDA_ERROR_NOT_INITIALIZED = 3,
    GK__CUDA_ERROR_NO_DEVICE = 100,
    GK__CUDA_ERROR_INVALID_DEVICE = 101,
    GK__CUDA_ERROR_STUB_LIBRARY = 34,
    GK__CUDA_ERROR_NOT_READY = 600,
    GK__CUDA_ERROR_NOT_FOUND = 500
};
enum {
    GK__CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    GK__CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    GK__CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    GK__CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    GK__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
};
enum {
    GK__CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    GK__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    GK__CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    GK__CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    GK__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};
/* cuLaunchKernelEx's configuration and attribute (CUlaunchConfig / CUlaunchAttribute layouts) */
enum { GK__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };
typedef struct gk__cu_launch_attr { int id; char pad[4]; union { char pad[64]; int i; } val; } gk__cu_launch_attr;
typedef struct gk__cu_launch_config {
    unsigned gx, gy, gz, bx, by, bz, smem;
    struct gk__cu_stream_st *stream;
    gk__cu_launch_attr *attrs;
    unsigned nattrs;
} gk__cu_launch_config;
/* TMA tensor maps (cuTensorMapEncodeTiled; the sm_90a GEMM, src/ops/matmul/gemm_wg.cu):
   an opaque 128-byte object that must be 64-byte aligned (gk__wg_launch
   aligns its buffer by hand: C99 has no alignas) */
typedef struct gk__cu_tensormap { uint64_t opaque[16]; } gk__cu_tensormap;
enum { GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6, GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7, GK__CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9 };
enum { GK__CU_TENSOR_MAP_INTERLEAVE_NONE = 0, GK__CU_TENSOR_MAP_SWIZZLE_128B = 3, GK__CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3,
       GK__CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 };
enum { GK__CU_STREAM_NON_BLOCKING = 1 };
enum { GK__CU_EVENT_DEFAULT = 0, GK__CU_EVENT_DISABLE_TIMING = 2 };
enum { GK__CU_EVENT_BLOCKING_SYNC = 1 };
/* cuPointerGetAttribute: the memory type of a host pointer (pinned host memory
   is CU_MEMORYTYPE_HOST; pageable memory is an error) and its allocation's range */
enum { GK__CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2, GK__CU_POINTER_ATTRIBUTE_IS_MANAGED = 8, GK__CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
       GK__CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11, GK__CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12, GK__CU_MEMORYTYPE_HOST = 1,
       GK__CU_MEMORYTYPE_DEVICE = 2, GK__CU_MEMORYTYPE_UNIFIED = 4 };
enum { GK__CU_STREAM_CAPTURE_MODE_RELAXED = 2 };
enum { GK__CU_STREAM_CAPTURE_STATUS_NONE = 0, GK__CU_STREAM_CAPTURE_STATUS_ACTIVE = 1 };

#if defined(_WIN32)
#define GK__CUDAAPI __stdcall
#else
#define GK__CUDAAPI
#endif

/* X(return type, exported symbol, field name, (parameters), required) */
#define GK__CU_FUNCS(X)                                                                          \
    X(gk__cu_result, cuInit, Init, (unsigned flags), 1)                                          \
    X(gk__cu_result, cuDriverGetVersion, DriverGetVersion, (int *v), 1)                          \
    X(gk__cu_result, cuGetErrorName, GetErrorName, (gk__cu_result e, const char **s), 1)         \
    X(gk__cu_result, cuGetErrorString, GetErrorString, (gk__cu_result e, const char **s), 1)     \
    X(gk__cu_result, cuDeviceGetCount, DeviceGetCount, (int *n), 1)                              \
    X(gk__cu_result, cuDeviceGet, DeviceGet, (gk__cu_device * d, int ordinal), 1)                \
    X(gk__cu_result, cuDeviceGetName, DeviceGetName, (char *name, int len, gk__cu_device d), 1)  \
    X(gk__cu_result, cuDeviceGetAttribute, DeviceGetAttribute, (int *v, int attr, gk__cu_device d), 1) \
    X(gk__cu_result, cuDeviceTotalMem_v2, DeviceTotalMem, (size_t * b, gk__cu_device d), 1)      \
    X(gk__cu_result, cuDevicePrimaryCtxRetain, PrimaryCtxRetain, (gk__cu_ctx * c, gk__cu_device d), 1) \
    X(gk__cu_result, cuDevicePrimaryCtxRelease_v2, PrimaryCtxRelease, (gk__cu_device d), 1)      \
    X(gk__cu_result, cuCtxSetCurrent, CtxSetCurrent, (gk__cu_ctx c), 1)                          \
    X(gk__cu_result, cuCtxSynchronize, CtxSynchronize, (void), 1)                                \
    X(gk__cu_result, cuCtxGetStreamPriorityRange, CtxGetStreamPriorityRange, (int *least, int *greatest), 1) \
    X(gk__cu_result, cuMemGetInfo_v2, MemGetInfo, (size_t * free_b, size_t * total_b), 1)         \
    X(gk__cu_result, cuMemAlloc_v2, MemAlloc, (gk__cu_ptr * p, size_t n), 1)                     \
    X(gk__cu_result, cuMemFree_v2, MemFree, (gk__cu_ptr p), 1)                                   \
    X(gk__cu_result, cuMemAllocHost_v2, MemAllocHost, (void **p, size_t n), 1)                   \
    X(gk__cu_result, cuMemFreeHost, MemFreeHost, (void *p), 1)                                   \
    X(gk__cu_result, cuMemHostGetFlags, MemHostGetFlags, (unsigned *flags, void *p), 0)           \
    X(gk__cu_result, cuPointerGetAttribute, PointerGetAttribute, (void *data, int attr, gk__cu_ptr p), 0) \
    X(gk__cu_result, cuMemcpyHtoD_v2, MemcpyHtoD, (gk__cu_ptr d, const void *s, size_t n), 1)    \
    X(gk__cu_result, cuMemcpyDtoH_v2, MemcpyDtoH, (void *d, gk__cu_ptr s, size_t n), 1)          \
    X(gk__cu_result, cuMemcpyHtoDAsync_v2, MemcpyHtoDAsync, (gk__cu_ptr d, const void *s, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemcpyDtoHAsync_v2, MemcpyDtoHAsync, (void *d, gk__cu_ptr s, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemcpyDtoDAsync_v2, MemcpyDtoDAsync, (gk__cu_ptr d, gk__cu_ptr s, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemsetD8Async, MemsetD8Async, (gk__cu_ptr d, unsigned char v, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemsetD32Async, MemsetD32Async, (gk__cu_ptr d, unsigned v, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuStreamCreateWithPriority, StreamCreateWithPriority, (gk__cu_stream * s, unsigned flags, int prio), 1) \
    X(gk__cu_result, cuStreamDestroy_v2, StreamDestroy, (gk__cu_stream s), 1)                    \
    X(gk__cu_result, cuStreamSynchronize, StreamSynchronize, (gk__cu_stream s), 1)               \
    X(gk__cu_result, cuStreamQuery, StreamQuery, (gk__cu_stream s), 1)                           \
    X(gk__cu_result, cuStreamWaitEvent, StreamWaitEvent, (gk__cu_stream s, gk__cu_event e, unsigned flags), 1) \
    X(gk__cu_result, cuEventCreate, EventCreate, (gk__cu_event * e, unsigned flags), 1)          \
    X(gk__cu_result, cuEventDestroy_v2, EventDestroy, (gk__cu_event e), 1)                       \
    X(gk__cu_result, cuEventRecord, EventRecord, (gk__cu_event e, gk__cu_stream s), 1)           \
    X(gk__cu_result, cuEventSynchronize, EventSynchronize, (gk__cu_event e), 1)                  \
    X(gk__cu_result, cuEventQuery, EventQuery, (gk__cu_event e), 1)                              \
    X(gk__cu_result, cuEventElapsedTime, EventElapsedTime, (float *ms, gk__cu_event a, gk__cu_event b), 1) \
    X(gk__cu_result, cuModuleLoadData, ModuleLoadData, (gk__cu_module * m, const void *image), 1) \
    X(gk__cu_result, cuModuleUnload, ModuleUnload, (gk__cu_module m), 1)                         \
    X(gk__cu_result, cuModuleGetFunction, ModuleGetFunction, (gk__cu_function * f, gk__cu_module m, const char *name), 1) \
    X(gk__cu_result, cuFuncGetAttribute, FuncGetAttribute, (int *v, int attr, gk__cu_function f), 1) \
    X(gk__cu_result, cuFuncSetAttribute, FuncSetAttribute, (gk__cu_function f, int attr, int v), 1) \
    X(gk__cu_result, cuFuncGetParamInfo, FuncGetParamInfo, (gk__cu_function f, size_t i, size_t *off, size_t *size), 0) \
    X(gk__cu_result, cuTensorMapEncodeTiled, TensorMapEncodeTiled, (gk__cu_tensormap * m, int dtype, unsigned rank, void *addr, const uint64_t *dims, const uint64_t *strides, const unsigned *box, const unsigned *estrides, int interleave, int swizzle, int l2promo, int oobfill), 0) \
    X(gk__cu_result, cuLaunchKernel, LaunchKernel, (gk__cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, gk__cu_stream s, void **params, void **extra), 1) \
    X(gk__cu_result, cuLaunchKernelEx, LaunchKernelEx, (const gk__cu_launch_config *c, gk__cu_function f, void **params, void **extra), 0) \
    X(gk__cu_result, cuLaunchCooperativeKernel, LaunchCooperativeKernel, (gk__cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, gk__cu_stream s, void **params), 1) \
    X(gk__cu_result, cuOccupancyMaxActiveBlocksPerMultiprocessor, OccupancyMaxActiveBlocksPerMultiprocessor, (int *nblocks, gk__cu_function f, int block_size, size_t smem), 1) \
    X(gk__cu_result, cuStreamBeginCapture_v2, StreamBeginCapture, (gk__cu_stream s, int mode), 1) \
    X(gk__cu_result, cuStreamEndCapture, StreamEndCapture, (gk__cu_stream s, gk__cu_graph * g), 1) \
    X(gk__cu_result, cuStreamIsCapturing, StreamIsCapturing, (gk__cu_stream s, int *status), 1)  \
    X(gk__cu_result, cuGraphInstantiateWithFlags, GraphInstantiate, (gk__cu_graph_exec * e, gk__cu_graph g, unsigned long long flags), 1) \
    X(gk__cu_result, cuGraphLaunch, GraphLaunch, (gk__cu_graph_exec e, gk__cu_stream s), 1)      \
    X(gk__cu_result, cuGraphExecDestroy, GraphExecDestroy, (gk__cu_graph_exec e), 1)             \
    X(gk__cu_result, cuGraphDestroy, GraphDestroy, (gk__cu_graph g), 1)

typedef int gk__nvrtc_result;
typedef struct gk__nvrtc_prog_st *gk__nvrtc_program;
#define GK__NVRTC_FUNCS(X)                                                                       \
    X(gk__nvrtc_result, nvrtcVersion, Version, (int *major, int *minor), 1)                      \
    X(const char *, nvrtcGetErrorString, GetErrorString, (gk__nvrtc_result r), 1)               \
    X(gk__nvrtc_result, nvrtcGetNumSupportedArchs, GetNumSupportedArchs, (int *n), 0)           \
    X(gk__nvrtc_result, nvrtcGetSupportedArchs, GetSupportedArchs, (int *archs), 0)             \
    X(gk__nvrtc_result, nvrtcCreateProgram, CreateProgram, (gk__nvrtc_program * p, const char *src, const char *name, int nh, const char *const *headers, const char *const *include_names), 1) \
    X(gk__nvrtc_result, nvrtcDestroyProgram, DestroyProgram, (gk__nvrtc_program * p), 1)         \
    X(gk__nvrtc_result, nvrtcCompileProgram, CompileProgram, (gk__nvrtc_program p, int nopt, const char *const *opts), 1) \
    X(gk__nvrtc_result, nvrtcGetProgramLogSize, GetProgramLogSize, (gk__nvrtc_program p, size_t *n), 1) \
    X(gk__nvrtc_result, nvrtcGetProgramLog, GetProgramLog, (gk__nvrtc_program p, char *log), 1)  \
    X(gk__nvrtc_result, nvrtcGetPTXSize, GetPTXSize, (gk__nvrtc_program p, size_t *n), 1)        \
    X(gk__nvrtc_result, nvrtcGetPTX, GetPTX, (gk__nvrtc_program p, char *ptx), 1)                \
    X(gk__nvrtc_result, nvrtcGetCUBINSize, GetCUBINSize, (gk__nvrtc_program p, size_t *n), 1)    \
    X(gk__nvrtc_result, nvrtcGetCUBIN, GetCUBIN, (gk__nvrtc_program p, char *cubin), 1)

typedef int gk__cublas_status;
typedef struct gk__cublaslt_st *gk__cublaslt_handle;
typedef struct gk__lt_desc_st *gk__lt_desc;
typedef struct gk__lt_layout_st *gk__lt_layout;
typedef struct gk__lt_pref_st *gk__lt_pref;
typedef struct gk__lt_algo { uint64_t data[8]; } gk__lt_algo;
typedef struct gk__lt_heur {
    gk__lt_algo algo;
    size_t workspace_size;
    gk__cublas_status state;
    float waves;
    int reserved[4];
} gk__lt_heur;
enum {
    GK__CUDA_R_32F = 0, GK__CUDA_R_64F = 1, GK__CUDA_R_16F = 2, GK__CUDA_R_16BF = 14,
    GK__CUBLAS_COMPUTE_32F = 68, GK__CUBLAS_COMPUTE_64F = 70, GK__CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    GK__CUBLAS_OP_N = 0, GK__CUBLAS_OP_T = 1,
    GK__LT_DESC_COMPUTE_TYPE = 0, GK__LT_DESC_SCALE_TYPE = 1, GK__LT_DESC_TRANSA = 3, GK__LT_DESC_TRANSB = 4,
    GK__LT_DESC_EPILOGUE = 7, GK__LT_DESC_BIAS_POINTER = 8, GK__LT_DESC_BIAS_DATA_TYPE = 26,
    GK__LT_LAYOUT_BATCH_COUNT = 5, GK__LT_LAYOUT_STRIDED_BATCH_OFFSET = 6,
    GK__LT_PREF_MAX_WORKSPACE_BYTES = 1,
    GK__LT_EPILOGUE_DEFAULT = 1, GK__LT_EPILOGUE_BIAS = 4, GK__LT_EPILOGUE_GELU = 32, GK__LT_EPILOGUE_GELU_BIAS = 36
};
#define GK__CUBLASLT_FUNCS(X)                                                                    \
    X(size_t, cublasLtGetVersion, GetVersion, (void), 1)                                        \
    X(gk__cublas_status, cublasLtCreate, Create, (gk__cublaslt_handle * h), 1)                  \
    X(gk__cublas_status, cublasLtDestroy, Destroy, (gk__cublaslt_handle h), 1)                  \
    X(gk__cublas_status, cublasLtMatmulDescCreate, DescCreate, (gk__lt_desc * d, int compute, int scale), 1) \
    X(gk__cublas_status, cublasLtMatmulDescDestroy, DescDestroy, (gk__lt_desc d), 1)             \
    X(gk__cublas_status, cublasLtMatmulDescSetAttribute, DescSet, (gk__lt_desc d, int attr, const void *v, size_t n), 1) \
    X(gk__cublas_status, cublasLtMatrixLayoutCreate, LayoutCreate, (gk__lt_layout * l, int type, uint64_t rows, uint64_t cols, int64_t ld), 1) \
    X(gk__cublas_status, cublasLtMatrixLayoutDestroy, LayoutDestroy, (gk__lt_layout l), 1)       \
    X(gk__cublas_status, cublasLtMatrixLayoutSetAttribute, LayoutSet, (gk__lt_layout l, int attr, const void *v, size_t n), 1) \
    X(gk__cublas_status, cublasLtMatmulPreferenceCreate, PrefCreate, (gk__lt_pref * p), 1)       \
    X(gk__cublas_status, cublasLtMatmulPreferenceDestroy, PrefDestroy, (gk__lt_pref p), 1)       \
    X(gk__cublas_status, cublasLtMatmulPreferenceSetAttribute, PrefSet, (gk__lt_pref p, int attr, const void *v, size_t n), 1) \
    X(gk__cublas_status, cublasLtMatmulAlgoGetHeuristic, AlgoGetHeuristic, (gk__cublaslt_handle h, gk__lt_desc d, gk__lt_layout a, gk__lt_layout b, gk__lt_layout c, gk__lt_layout dd, gk__lt_pref p, int want, gk__lt_heur *res, int *got), 1) \
    X(gk__cublas_status, cublasLtMatmul, Matmul, (gk__cublaslt_handle h, gk__lt_desc d, const void *alpha, const void *a, gk__lt_layout la, const void *b, gk__lt_layout lb, const void *beta, const void *c, gk__lt_layout lc, void *dd, gk__lt_layout ld, const gk__lt_algo *algo, void *ws, size_t wsn, gk__cu_stream s), 1)

#define GK__FN_FIELD(ret, sym, field, params, req) ret(GK__CUDAAPI *field) params;
typedef struct gk__cu_api { GK__CU_FUNCS(GK__FN_FIELD) } gk__cu_api;
typedef struct gk__nvrtc_api { GK__NVRTC_FUNCS(GK__FN_FIELD) } gk__nvrtc_api;
typedef struct gk__cublaslt_api { GK__CUBLASLT_FUNCS(GK__FN_FIELD) } gk__cublaslt_api;
#undef GK__FN_FIELD

