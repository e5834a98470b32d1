"""cffi build script of gpukit._gpukit (API mode).

The extension is the whole C library: gpukit.h and gpukit_llm.h compiled
with GPUKIT_IMPLEMENTATION and GPUKIT_LLM_IMPLEMENTATION, linked with libdl,
libm and libpthread only. Nothing of CUDA is linked or included: the
library loads the driver, NVRTC and cuBLASLt with dlopen at run time.

The declarations cffi sees are gpukit/_cdef.h, generated from the headers
by tools/gen_cdef.py (a check in `make test-python` keeps it in step), plus
the few helpers below: DLPack structs and their deleter, and the callbacks
(extern "Python") that the C library calls back into Python through.
Headers: _vendor/ (setup.py copies them there from the repository).
"""
import os

import cffi

HERE = os.path.dirname(os.path.abspath(__file__))
VENDOR = os.path.join(HERE, "_vendor")

HELPERS_CDEF = r"""
/* DLPack (the unversioned ABI of dlpack.h: DLManagedTensor in a "dltensor" capsule) */
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data; DLDevice device; int32_t ndim; DLDataType dtype;
    int64_t *shape; int64_t *strides; uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor; void *manager_ctx; void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
DLManagedTensor *gkpy_dlpack_new(uint64_t data, int32_t device_type, int32_t device_id, int32_t ndim, uint8_t code,
                                 uint8_t bits, const int64_t *shape, const int64_t *strides, uint64_t key);
void gkpy_dlpack_call_deleter(DLManagedTensor *m);
const char *gkpy_capsule_name(int used);
void *gkpy_capsule_destructor(void);

/* callbacks into Python */
extern "Python" void gkpy_dlpack_release(uint64_t key);
extern "Python" void gkpy_wrap_release(void *user);
extern "Python" int gkpy_on_token(int seq, int32_t id, const char *text, size_t len, void *user);
extern "Python" gk_status gkpy_task(gk_ctx *ctx, gk_stream *stream, void *user);
extern "Python" void gkpy_cpu_kernel(const gk_cpu_launch *launch);
extern "Python" void gkpy_progress(uint64_t done, uint64_t total, void *user);
extern "Python" void gkpy_whisper_progress(double done_s, double total_s, void *user);
extern "Python" int gkpy_whisper_cancel(void *user);
extern "Python" int gkpy_kokoro_audio(const float *samples, size_t n, const gk_kokoro_chunk_info *info, void *user);
extern "Python" void gkpy_log(gk_log_level level, const char *message, void *user);
"""

HELPERS_C = r"""
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data; DLDevice device; int32_t ndim; DLDataType dtype;
    int64_t *shape; int64_t *strides; uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor; void *manager_ctx; void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

static void gkpy_dlpack_release(uint64_t key);

/* one exported tensor: the managed tensor, its shape and strides, and the
   key of the Python object that keeps the array (and its pin) alive */
typedef struct gkpy_dlpack {
    DLManagedTensor m;
    int64_t shape[GK_MAX_DIMS], strides[GK_MAX_DIMS];
    uint64_t key;
} gkpy_dlpack;

static void gkpy_dlpack_deleter(DLManagedTensor *self) {
    uint64_t key = ((gkpy_dlpack *)self)->key;
    free(self);
    gkpy_dlpack_release(key);
}

static DLManagedTensor *gkpy_dlpack_new(uint64_t data, int32_t device_type, int32_t device_id, int32_t ndim, uint8_t code,
                                        uint8_t bits, const int64_t *shape, const int64_t *strides, uint64_t key) {
    gkpy_dlpack *p;
    int i;
    if (ndim < 0 || ndim > GK_MAX_DIMS) return NULL;
    p = (gkpy_dlpack *)calloc(1, sizeof *p);
    if (!p) return NULL;
    for (i = 0; i < ndim; i++) { p->shape[i] = shape[i]; p->strides[i] = strides[i]; }
    p->m.dl_tensor.data = (void *)(uintptr_t)data;
    p->m.dl_tensor.device.device_type = device_type;
    p->m.dl_tensor.device.device_id = device_id;
    p->m.dl_tensor.ndim = ndim;
    p->m.dl_tensor.dtype.code = code;
    p->m.dl_tensor.dtype.bits = bits;
    p->m.dl_tensor.dtype.lanes = 1;
    p->m.dl_tensor.shape = p->shape;
    p->m.dl_tensor.strides = p->strides;
    p->m.dl_tensor.byte_offset = 0;
    p->m.manager_ctx = p;
    p->m.deleter = gkpy_dlpack_deleter;
    p->key = key;
    return &p->m;
}

static void gkpy_dlpack_call_deleter(DLManagedTensor *m) {
    if (m && m->deleter) m->deleter(m);
}

static const char gkpy_name_dltensor[] = "dltensor";
static const char gkpy_name_used[] = "used_dltensor";
static const char *gkpy_capsule_name(int used) { return used ? gkpy_name_used : gkpy_name_dltensor; }

/* A capsule that no consumer took (still named "dltensor") owns its tensor. */
static void gkpy_capsule_destructor_fn(PyObject *cap) {
    if (PyCapsule_IsValid(cap, gkpy_name_dltensor)) {
        DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(cap, gkpy_name_dltensor);
        gkpy_dlpack_call_deleter(m);
    }
}
static void *gkpy_capsule_destructor(void) { return (void *)gkpy_capsule_destructor_fn; }
"""


def _source():
    return (
        "#define GPUKIT_IMPLEMENTATION\n"
        "#define GPUKIT_LLM_IMPLEMENTATION\n"
        '#include "gpukit.h"\n'
        '#include "gpukit_llm.h"\n'
        "#include <stdlib.h>\n" + HELPERS_C
    )


def _cdef():
    path = os.path.join(HERE, "gpukit", "_cdef.h")
    with open(path, encoding="utf-8") as f:
        return f.read() + HELPERS_CDEF


ffibuilder = cffi.FFI()
ffibuilder.cdef(_cdef())
ffibuilder.set_source(
    "gpukit._gpukit",
    _source(),
    include_dirs=[VENDOR],
    libraries=["dl", "m", "pthread"],
    depends=[os.path.join(VENDOR, h) for h in ("gpukit.h", "gpukit_llm.h", "gpukit_kernels.h")],  # rebuilt when they change
    extra_compile_args=["-std=gnu99", "-O2", "-fvisibility=hidden", "-Wno-unused-function"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
