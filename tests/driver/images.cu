// images.cu: the device code of the fatbins in images.h (gen_images.py
// builds them with nvcc; driver_images.c and driver_library.c load them).
#ifndef SASS_ONLY
__device__ int bias = 100;

// p[i] += bias + i for i < n
extern "C" __global__ void addbias(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += bias + i;
}

// p[threadIdx.x] *= s
extern "C" __global__ void scale(float *p, float s) { p[threadIdx.x] *= s; }
#else
extern "C" __global__ void sass_only(int *p) { *p = 1; }
#endif
