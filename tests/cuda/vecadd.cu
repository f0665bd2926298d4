// vecadd: element-wise c = a + b for int and float, bounds-checked 1-D grid. Launch: vecadd_int|vecadd_float -g 4 -b 64 -a s32[250]:iota -a s32[250]:fill=3 -a s32[250]:zero -a s32:250 -o 2 (f32 buffers for vecadd_float); see MANIFEST.
extern "C" __global__ void vecadd_int(const int* a, const int* b, int* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vecadd_float(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
