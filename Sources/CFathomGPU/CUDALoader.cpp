// The CUDA driver API and NVRTC through dlopen/dlsym: no CUDA header or library at build
// time. The few types and constants used are declared here as the CUDA headers define them
// (driver API 12/13, NVRTC 12/13). Driver functions are looked up by their versioned names
// (cuMemAlloc_v2, ...): libcuda still exports the old names with 32-bit device pointers
// (Documentation/Design.md section 11).
#include "CFathomGPU.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

const int kAttributeComputeMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
const int kAttributeComputeMinor = 76;
const int kAttributeMultiprocessors = 16;  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
const int kAttributeSharedOptIn = 97;      // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
const int kFunctionStaticShared = 1;       // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
const int kFunctionMaxDynamicShared = 8;   // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

struct Driver {
    void *library = nullptr;
    bool ready = false;
    CUdevice device = 0;
    CUcontext context = nullptr;
    CUresult (*cuInit)(unsigned int);
    CUresult (*cuDriverGetVersion)(int *);
    CUresult (*cuDeviceGetCount)(int *);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetName)(char *, int, CUdevice);
    CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemAllocHost)(void **, size_t);
    CUresult (*cuMemFreeHost)(void *);
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                               void **, void **);
    CUresult (*cuLaunchCooperativeKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                          CUstream, void **);
    CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
    CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
    CUresult (*cuCtxSynchronize)(void);
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuGetErrorString)(CUresult, const char **);
};

struct Compiler {
    void *library = nullptr;
    bool tried = false;
    char failure[512] = {0};
    nvrtcResult (*nvrtcVersion)(int *, int *);
    nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
    nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
    const char *(*nvrtcGetErrorString)(nvrtcResult);
};

Driver driver;
Compiler compiler;

void fail(char *error, int length, const char *format, const char *a = "", const char *b = "") {
    if (error && length > 0) snprintf(error, (size_t)length, format, a, b);
}

/// A driver call's failure as "call: NAME (description)".
int check(CUresult status, const char *call, char *error, int length) {
    if (status == 0) return 0;
    const char *name = "?", *text = "";
    if (driver.cuGetErrorName) driver.cuGetErrorName(status, &name);
    if (driver.cuGetErrorString) driver.cuGetErrorString(status, &text);
    char detail[256];
    snprintf(detail, sizeof detail, "%s (%s)", name ? name : "?", text ? text : "");
    fail(error, length, "CUDA %s failed: %s", call, detail);
    return 2;
}

template <class F> bool bind(void *library, F &slot, const char *name) {
    slot = reinterpret_cast<F>(dlsym(library, name));
    return slot != nullptr;
}

bool openCompiler() {
    if (compiler.tried) return compiler.library != nullptr;
    compiler.tried = true;
    const char *names[] = {getenv("FATHOM_NVRTC"), "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
                           "/usr/local/cuda/lib64/libnvrtc.so"};
    for (const char *name : names) {
        if (!name || !*name) continue;
        if (name[0] == '/') {
            // NVRTC opened by path looks for its builtins library beside it only if that is
            // already loaded (Documentation/Design.md section 11): open every libnvrtc-builtins there first.
            char folder[1024];
            snprintf(folder, sizeof folder, "%s", name);
            char *slash = strrchr(folder, '/');
            if (slash) {
                *slash = 0;
                const char *builtins[] = {"libnvrtc-builtins.so", "libnvrtc-builtins.so.13.0", "libnvrtc-builtins.so.13.1",
                                          "libnvrtc-builtins.so.13.2", "libnvrtc-builtins.so.12.9", "libnvrtc-builtins.so.12.8"};
                for (const char *b : builtins) {
                    char path[1200];
                    snprintf(path, sizeof path, "%s/%s", folder, b);
                    dlopen(path, RTLD_NOW | RTLD_GLOBAL);
                }
            }
        }
        void *library = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
        if (!library) continue;
        bool ok = bind(library, compiler.nvrtcVersion, "nvrtcVersion") &&
                  bind(library, compiler.nvrtcCreateProgram, "nvrtcCreateProgram") &&
                  bind(library, compiler.nvrtcCompileProgram, "nvrtcCompileProgram") &&
                  bind(library, compiler.nvrtcGetCUBINSize, "nvrtcGetCUBINSize") &&
                  bind(library, compiler.nvrtcGetCUBIN, "nvrtcGetCUBIN") &&
                  bind(library, compiler.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize") &&
                  bind(library, compiler.nvrtcGetProgramLog, "nvrtcGetProgramLog") &&
                  bind(library, compiler.nvrtcDestroyProgram, "nvrtcDestroyProgram") &&
                  bind(library, compiler.nvrtcGetErrorString, "nvrtcGetErrorString");
        if (ok) {
            compiler.library = library;
            return true;
        }
        dlclose(library);
    }
    snprintf(compiler.failure, sizeof compiler.failure,
             "NVRTC (libnvrtc.so.13 or .12) could not be opened: install the CUDA toolkit's NVRTC or set FATHOM_NVRTC to its path");
    return false;
}

}  // namespace

extern "C" int fg_open(char *error, int length) {
    if (driver.ready) return 0;
    if (!driver.library) {
        driver.library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
        if (!driver.library) {
            fail(error, length, "no CUDA driver: libcuda.so.1 could not be opened (%s)", dlerror());
            return 1;
        }
    }
    void *l = driver.library;
    bool ok = bind(l, driver.cuInit, "cuInit") && bind(l, driver.cuDriverGetVersion, "cuDriverGetVersion") &&
              bind(l, driver.cuDeviceGetCount, "cuDeviceGetCount") && bind(l, driver.cuDeviceGet, "cuDeviceGet") &&
              bind(l, driver.cuDeviceGetName, "cuDeviceGetName") && bind(l, driver.cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
              bind(l, driver.cuDeviceTotalMem, "cuDeviceTotalMem_v2") &&
              bind(l, driver.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
              bind(l, driver.cuCtxSetCurrent, "cuCtxSetCurrent") && bind(l, driver.cuModuleLoadData, "cuModuleLoadData") &&
              bind(l, driver.cuModuleGetFunction, "cuModuleGetFunction") && bind(l, driver.cuMemAlloc, "cuMemAlloc_v2") &&
              bind(l, driver.cuMemFree, "cuMemFree_v2") && bind(l, driver.cuMemAllocHost, "cuMemAllocHost_v2") &&
              bind(l, driver.cuMemFreeHost, "cuMemFreeHost") && bind(l, driver.cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
              bind(l, driver.cuMemcpyDtoH, "cuMemcpyDtoH_v2") && bind(l, driver.cuLaunchKernel, "cuLaunchKernel") &&
              bind(l, driver.cuCtxSynchronize, "cuCtxSynchronize") && bind(l, driver.cuGetErrorName, "cuGetErrorName") &&
              bind(l, driver.cuGetErrorString, "cuGetErrorString") &&
              bind(l, driver.cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel") &&
              bind(l, driver.cuFuncGetAttribute, "cuFuncGetAttribute") &&
              bind(l, driver.cuFuncSetAttribute, "cuFuncSetAttribute");
    if (!ok) {
        fail(error, length, "the CUDA driver (libcuda.so.1) lacks a function Fathom needs: it is older than CUDA 12%s", "");
        return 2;
    }
    if (int s = check(driver.cuInit(0), "cuInit", error, length)) return s;
    int count = 0;
    if (int s = check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount", error, length)) return s;
    if (count < 1) {
        fail(error, length, "the CUDA driver sees no GPU%s", "");
        return 2;
    }
    if (int s = check(driver.cuDeviceGet(&driver.device, 0), "cuDeviceGet", error, length)) return s;
    if (int s = check(driver.cuDevicePrimaryCtxRetain(&driver.context, driver.device), "cuDevicePrimaryCtxRetain", error, length)) return s;
    if (int s = check(driver.cuCtxSetCurrent(driver.context), "cuCtxSetCurrent", error, length)) return s;
    driver.ready = true;
    return 0;
}

extern "C" int fg_device_info(char *name, int nameLength, int *major, int *minor, size_t *memory, int *driverVersion) {
    if (!driver.ready) return 2;
    driver.cuCtxSetCurrent(driver.context);
    if (driver.cuDeviceGetName(name, nameLength, driver.device) != 0) return 2;
    if (driver.cuDeviceGetAttribute(major, kAttributeComputeMajor, driver.device) != 0) return 2;
    if (driver.cuDeviceGetAttribute(minor, kAttributeComputeMinor, driver.device) != 0) return 2;
    if (driver.cuDeviceTotalMem(memory, driver.device) != 0) return 2;
    if (driver.cuDriverGetVersion(driverVersion) != 0) return 2;
    return 0;
}

extern "C" int fg_nvrtc_version(void) {
    if (!openCompiler()) return 0;
    int major = 0, minor = 0;
    if (compiler.nvrtcVersion(&major, &minor) != 0) return 0;
    return major * 1000 + minor * 10;
}

extern "C" int fg_compile(const char *source, const char *name, const char *const *options, int optionCount,
                          void **image, size_t *size, char *error, int length) {
    if (!openCompiler()) {
        fail(error, length, "%s", compiler.failure);
        return 1;
    }
    nvrtcProgram program = nullptr;
    nvrtcResult r = compiler.nvrtcCreateProgram(&program, source, name, 0, nullptr, nullptr);
    if (r != 0) {
        fail(error, length, "NVRTC nvrtcCreateProgram failed: %s", compiler.nvrtcGetErrorString(r));
        return 2;
    }
    r = compiler.nvrtcCompileProgram(program, optionCount, options);
    if (r != 0) {
        size_t logSize = 0;
        compiler.nvrtcGetProgramLogSize(program, &logSize);
        char *log = (char *)calloc(logSize + 1, 1);
        if (log) compiler.nvrtcGetProgramLog(program, log);
        // The first line of the log is the first error: one line for the user.
        if (log) {
            for (char *c = log; *c; c++) {
                if (*c == '\n') { *c = 0; break; }
            }
        }
        fail(error, length, "NVRTC could not compile Fathom's kernels: %s", log ? log : compiler.nvrtcGetErrorString(r));
        free(log);
        compiler.nvrtcDestroyProgram(&program);
        return 2;
    }
    size_t bytes = 0;
    r = compiler.nvrtcGetCUBINSize(program, &bytes);
    void *buffer = r == 0 ? malloc(bytes) : nullptr;
    if (r != 0 || !buffer || compiler.nvrtcGetCUBIN(program, (char *)buffer) != 0) {
        fail(error, length, "NVRTC produced no CUBIN: %s", r != 0 ? compiler.nvrtcGetErrorString(r) : "out of memory");
        free(buffer);
        compiler.nvrtcDestroyProgram(&program);
        return 2;
    }
    compiler.nvrtcDestroyProgram(&program);
    *image = buffer;
    *size = bytes;
    return 0;
}

extern "C" void fg_free_image(void *image) { free(image); }

extern "C" int fg_load_module(const void *image, void **module, char *error, int length) {
    driver.cuCtxSetCurrent(driver.context);
    CUmodule m = nullptr;
    if (int s = check(driver.cuModuleLoadData(&m, image), "cuModuleLoadData", error, length)) return s;
    *module = m;
    return 0;
}

extern "C" int fg_get_function(void *module, const char *name, void **function, char *error, int length) {
    CUfunction f = nullptr;
    if (int s = check(driver.cuModuleGetFunction(&f, (CUmodule)module, name), "cuModuleGetFunction", error, length)) return s;
    *function = f;
    return 0;
}

extern "C" int fg_alloc(size_t bytes, unsigned long long *pointer, char *error, int length) {
    driver.cuCtxSetCurrent(driver.context);
    CUdeviceptr p = 0;
    if (int s = check(driver.cuMemAlloc(&p, bytes > 0 ? bytes : 1), "cuMemAlloc", error, length)) return s;
    *pointer = p;
    return 0;
}

extern "C" void fg_free(unsigned long long pointer) {
    if (driver.ready && pointer) {
        driver.cuCtxSetCurrent(driver.context);
        driver.cuMemFree(pointer);
    }
}

extern "C" int fg_host_alloc(size_t bytes, void **pointer, char *error, int length) {
    driver.cuCtxSetCurrent(driver.context);
    return check(driver.cuMemAllocHost(pointer, bytes > 0 ? bytes : 1), "cuMemAllocHost", error, length);
}

extern "C" void fg_host_free(void *pointer) {
    if (driver.ready && pointer) {
        driver.cuCtxSetCurrent(driver.context);
        driver.cuMemFreeHost(pointer);
    }
}

extern "C" int fg_upload(unsigned long long destination, const void *source, size_t bytes, char *error, int length) {
    if (bytes == 0) return 0;
    driver.cuCtxSetCurrent(driver.context);
    return check(driver.cuMemcpyHtoD(destination, source, bytes), "cuMemcpyHtoD", error, length);
}

extern "C" int fg_download(void *destination, unsigned long long source, size_t bytes, char *error, int length) {
    if (bytes == 0) return 0;
    driver.cuCtxSetCurrent(driver.context);
    return check(driver.cuMemcpyDtoH(destination, source, bytes), "cuMemcpyDtoH", error, length);
}

extern "C" int fg_launch(void *function, unsigned int blocks, unsigned int threads, void *parameter, char *error, int length) {
    driver.cuCtxSetCurrent(driver.context);
    void *arguments[] = {parameter};
    if (int s = check(driver.cuLaunchKernel((CUfunction)function, blocks, 1, 1, threads, 1, 1, 0, nullptr, arguments, nullptr),
                      "cuLaunchKernel", error, length)) return s;
    return check(driver.cuCtxSynchronize(), "kernel run (cuCtxSynchronize)", error, length);
}

extern "C" int fg_multiprocessors(void) {
    if (!driver.ready) return 0;
    int count = 0;
    if (driver.cuDeviceGetAttribute(&count, kAttributeMultiprocessors, driver.device) != 0) return 0;
    return count;
}

extern "C" int fg_launch_cooperative(void *function, unsigned int blocks, unsigned int threads, unsigned int sharedBytes,
                                     void *parameter, char *error, int length) {
    driver.cuCtxSetCurrent(driver.context);
    void *arguments[] = {parameter};
    if (int s = check(driver.cuLaunchCooperativeKernel((CUfunction)function, blocks, 1, 1, threads, 1, 1, sharedBytes, nullptr,
                                                       arguments),
                      "cuLaunchCooperativeKernel", error, length)) return s;
    return check(driver.cuCtxSynchronize(), "kernel run (cuCtxSynchronize)", error, length);
}

extern "C" unsigned int fg_allow_shared(void *function, unsigned int bytes) {
    if (!driver.ready || bytes == 0) return 0;
    driver.cuCtxSetCurrent(driver.context);
    int optIn = 0, fixed = 0;
    if (driver.cuDeviceGetAttribute(&optIn, kAttributeSharedOptIn, driver.device) != 0) return 0;
    if (driver.cuFuncGetAttribute(&fixed, kFunctionStaticShared, (CUfunction)function) != 0) return 0;
    if ((long long)bytes + fixed > optIn) return 0;
    if (driver.cuFuncSetAttribute((CUfunction)function, kFunctionMaxDynamicShared, (int)bytes) != 0) return 0;
    return bytes;
}
