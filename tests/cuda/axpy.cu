// axpy: SAXPY (f32, contracted to fma.rn.f32) and DAXPY (f64, fma.rn.f64), grid-stride loop. Launch: saxpy -g 2 -b 32 -a s32:100 -a f32:0.1 -a f32[100]:iota -a f32[100]:fill=1 -o 3 ; daxpy likewise with f64; see MANIFEST.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void daxpy(int n, double a, const double* x, double* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
