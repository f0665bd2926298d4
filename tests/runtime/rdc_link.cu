// rdc_link.cu: relocatable device code whose objects do not link. nvlink
// would refuse them at build time, so the program makes the registration
// calls of nvcc's device link itself (crt/link.stub): one fatbin, with a
// version 2 wrapper listing two objects' relocatable fatbins of PTX, the
// second calling a function neither defines. The link error is said once,
// at the declaration, naming the executable's object (FILE#2:LINE:COL); each
// launch and symbol access of that code returns cudaErrorInvalidPtx (a PTX
// JIT compilation failed); the program's other device code runs.
// STDERR-ONCE: #2:4:
// STDERR: missing
#include "check.h"

extern "C" void **__cudaRegisterFatBinary(void *fatCubin);
extern "C" void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
extern "C" void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                       const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                                       dim3 *bDim, dim3 *gDim, int *wSize);
extern "C" void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                  const char *deviceName, int ext, size_t size, int constant, int global);

static const char first[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .global .align 4 .b32 v;\n"
    ".visible .func (.param .b32 r) present(.param .b32 x)\n"
    "{\n.reg .b32 %r<2>;\nld.param.b32 %r1, [x];\nst.param.b32 [r], %r1;\nret;\n}\n";
static const char second[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".extern .func (.param .b32 r) missing(.param .b32 x);\n"
    ".extern .global .align 4 .b32 v;\n"
    ".visible .entry k(.param .u64 p)\n"
    "{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nld.global.u32 %r1, [v];\n"
    "{\n.param .b32 x0;\nst.param.b32 [x0], %r1;\n.param .b32 r0;\ncall.uni (r0), missing, (x0);\n"
    "ld.param.b32 %r2, [r0];\n}\nst.global.u32 [%rd1], %r2;\nret;\n}\n";

// A fatbin of one stored (uncompressed) PTX entry for sm_90: a 16-byte
// header (magic, version 1, header size, payload size), a 64-byte entry
// header (kind 1 = PTX, its header and payload sizes, the PTX ISA version,
// the target, flags), the text with its NUL, padded to 8 bytes.
static unsigned long long fatbins[2][256];
static void make_fatbin(unsigned long long *out, const char *text) {
  unsigned char *p = (unsigned char *)out;
  size_t n = (strlen(text) + 1 + 7) & ~(size_t)7;
  unsigned magic = 0xBA55ED50u, entry = 64, kind = 0x01010001u, isa = 8u << 16, sm = 90;
  unsigned long long body = 64 + n, flags = 0x11, payload = n;
  memcpy(p, &magic, 4);
  p[4] = 1, p[6] = 16;
  memcpy(p + 8, &body, 8);
  unsigned char *e = p + 16;
  memcpy(e, &kind, 4);
  memcpy(e + 4, &entry, 4);
  memcpy(e + 8, &payload, 8);
  memcpy(e + 24, &isa, 4);
  memcpy(e + 28, &sm, 4);
  memcpy(e + 40, &flags, 8);
  memcpy(e + 64, text, strlen(text) + 1);
}

static void *objects[3];
// crt/fatbinary_section.h's __fatBinC_Wrapper_t (nvcc's own code includes
// that header, which cannot be included twice)
struct Wrapper { int magic, version; const unsigned long long *data; void *filename_or_fatbins; };
static Wrapper linked = {0x466243b1, 2, nullptr, objects};
static void stub_k() {}   // the host stub the kernel is registered by
static int shadow_v;      // and the variable's host shadow

__global__ void plain(int *p) { *p = 7; }

int main() {
  make_fatbin(fatbins[0], first);
  make_fatbin(fatbins[1], second);
  objects[0] = fatbins[0], objects[1] = fatbins[1];
  linked.data = fatbins[0];   // the device link's own (SASS) fatbin: not used
  void **h = __cudaRegisterFatBinary(&linked);
  __cudaRegisterFunction(h, (const char *)stub_k, (char *)"k", "k", -1, nullptr, nullptr, nullptr, nullptr,
                         nullptr);
  __cudaRegisterVar(h, (char *)&shadow_v, (char *)"v", "v", 0, sizeof(int), 0, 0);
  __cudaRegisterFatBinaryEnd(h);

  int *d = nullptr, x = 0;
  OK(cudaMalloc(&d, sizeof(int)));
  void *args[] = {&d};
  EXPECT(cudaLaunchKernel((const void *)stub_k, dim3(1), dim3(1), args, 0, 0), cudaErrorInvalidPtx);
  EXPECT(cudaLaunchKernel((const void *)stub_k, dim3(1), dim3(1), args, 0, 0), cudaErrorInvalidPtx);
  EXPECT(cudaMemcpyToSymbol(shadow_v, &x, sizeof x), cudaErrorInvalidPtx);
  cudaGetLastError();
  plain<<<1, 1>>>(d);
  OK(cudaGetLastError());
  OK(cudaMemcpy(&x, d, sizeof x, cudaMemcpyDeviceToHost));
  CHECK(x == 7);
  return finish();
}
