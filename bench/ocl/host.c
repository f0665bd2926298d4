/* bench/ocl/host.c: runs one of the OpenCL versions of W1-W3 (NAME.cl here)
 * on PoCL with the inputs of the C reference (bench/ref, splitmix64) and
 * writes the result's raw bytes, as the reference does.
 *   ocl_bench DIR NAME ARGS... OUT
 * ARGS are the reference's (w1_reduce N GRID SEED, w2_sgemm N SEEDA SEEDB,
 * w3_hist N GRID SEED). Prints "KERNEL_S COMPUTE_UNITS": the kernel's time,
 * clEnqueueNDRangeKernel to clFinish, of a run after a warm-up run (which
 * makes PoCL compile the work-group function), and the device's compute
 * units (its host threads: POCL_CPU_MAX_CU_COUNT). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../ref/splitmix.h"
#include "../ref/timing.h"

static void die(const char *what, cl_int err)
{
    fprintf(stderr, "ocl_bench: %s failed (OpenCL error %d)\n", what, (int)err);
    exit(1);
}
#define CK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) die(#call, e_); } while (0)

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
    fclose(f);
    s[n] = 0;
    *len = (size_t)n;
    return s;
}

/* PoCL's platform (ICD loaders may list others): its name says so. */
static cl_device_id pocl_device(void)
{
    cl_platform_id ps[16];
    cl_uint np = 0;
    CK(clGetPlatformIDs(16, ps, &np));
    for (cl_uint i = 0; i < np && i < 16; i++) {
        char name[256] = "";
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (!strstr(name, "Portable Computing Language"))
            continue;
        cl_device_id d;
        CK(clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_CPU, 1, &d, NULL));
        return d;
    }
    fprintf(stderr, "ocl_bench: no PoCL platform (pocl-opencl-icd; bench/ocl/deps.sh)\n");
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: ocl_bench DIR NAME ARGS... OUT\n"); return 2; }
    const char *dir = argv[1], *name = argv[2], *outpath = argv[argc - 1];
    int w = !strcmp(name, "w1_reduce") ? 1 : !strcmp(name, "w2_sgemm") ? 2 : !strcmp(name, "w3_hist") ? 3 : 0;
    if (!w || argc != 7) { fprintf(stderr, "ocl_bench: w1_reduce N GRID SEED | w2_sgemm N SEEDA SEEDB | w3_hist N GRID SEED, then OUT\n"); return 2; }
    uint32_t n = (uint32_t)strtoul(argv[3], NULL, 0);

    cl_device_id dev = pocl_device();
    cl_uint cus = 0;
    CK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (!ctx) die("clCreateContext", err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (!q) die("clCreateCommandQueue", err);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.cl", dir, name);
    size_t srclen;
    const char *src = slurp(path, &srclen);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, &srclen, &err);
    if (!prog) die("clCreateProgramWithSource", err);
    if ((err = clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL)) != CL_SUCCESS) {
        char log[16384] = "";
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "%s\n", log);
        die("clBuildProgram", err);
    }
    cl_kernel k = clCreateKernel(prog, name, &err);
    if (!k) die("clCreateKernel", err);

    /* inputs exactly as the reference generates them */
    void *in0 = NULL, *in1 = NULL;
    size_t in0_bytes = 0, out_bytes = 0, gsz[2], lsz[2];
    cl_uint dims = 1;
    if (w == 1 || w == 3) {
        uint32_t grid = (uint32_t)strtoul(argv[4], NULL, 0);
        uint64_t st = strtoull(argv[5], NULL, 0);
        in0_bytes = w == 1 ? (size_t)n * 4 : n;
        in0 = malloc(in0_bytes);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t x = splitmix64_next(&st);
            if (w == 1) ((uint32_t *)in0)[i] = (uint32_t)x; else ((uint8_t *)in0)[i] = (uint8_t)x;
        }
        out_bytes = w == 1 ? (size_t)grid * 4 : 256 * 4;
        gsz[0] = (size_t)grid * 256;
        lsz[0] = 256;
    } else {
        uint64_t sa = strtoull(argv[4], NULL, 0), sb = strtoull(argv[5], NULL, 0);
        size_t nn = (size_t)n * n;
        in0_bytes = nn * 4;
        in0 = malloc(nn * 4);
        in1 = malloc(nn * 4);
        for (size_t i = 0; i < nn; i++) ((float *)in0)[i] = splitmix64_f32(&sa);
        for (size_t i = 0; i < nn; i++) ((float *)in1)[i] = splitmix64_f32(&sb);
        out_bytes = nn * 4;
        dims = 2;
        gsz[0] = gsz[1] = n;
        lsz[0] = lsz[1] = 32;
    }
    cl_mem b0 = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in0_bytes, in0, &err);
    if (!b0) die("clCreateBuffer", err);
    cl_mem b1 = NULL;
    if (in1 && !(b1 = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in0_bytes, in1, &err)))
        die("clCreateBuffer", err);
    cl_mem bo = clCreateBuffer(ctx, CL_MEM_READ_WRITE, out_bytes, NULL, &err);
    if (!bo) die("clCreateBuffer", err);
    int ai = 0;
    CK(clSetKernelArg(k, ai++, sizeof b0, &b0));
    if (b1) CK(clSetKernelArg(k, ai++, sizeof b1, &b1));
    CK(clSetKernelArg(k, ai++, sizeof bo, &bo));
    if (w == 2) { cl_int ni = (cl_int)n; CK(clSetKernelArg(k, ai++, sizeof ni, &ni)); }
    else CK(clSetKernelArg(k, ai++, sizeof n, &n));

    void *out = calloc(1, out_bytes);
    double t = 0;
    for (int run = 0; run < 2; run++) {          /* run 0: the warm-up */
        memset(out, 0, out_bytes);
        CK(clEnqueueWriteBuffer(q, bo, CL_TRUE, 0, out_bytes, out, 0, NULL, NULL));
        CK(clFinish(q));
        double t0 = now_s();
        CK(clEnqueueNDRangeKernel(q, k, dims, NULL, gsz, lsz, 0, NULL, NULL));
        CK(clFinish(q));
        t = now_s() - t0;
    }
    CK(clEnqueueReadBuffer(q, bo, CL_TRUE, 0, out_bytes, out, 0, NULL, NULL));
    FILE *f = fopen(outpath, "wb");
    if (!f || fwrite(out, 1, out_bytes, f) != out_bytes || fclose(f)) { perror(outpath); return 1; }
    printf("%.6f %u\n", t, (unsigned)cus);
    return 0;
}
