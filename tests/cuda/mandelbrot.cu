// mandelbrot: escape-time iteration counts (float, explicit __fmul_rn/__fadd_rn so no fma contraction) into an int array, 2-D grid. Launch: mandelbrot -g 2,3 -b 16,8 -a s32[768]:zero -a s32:32 -a s32:24 -a f32:-2.0 -a f32:-1.125 -a f32:0.09375 -a f32:0.09375 -a s32:64 -o 0.
extern "C" __global__ void mandelbrot(int* iters, int w, int h, float x0, float y0, float dx, float dy, int maxit)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float cx = __fadd_rn(x0, __fmul_rn((float)px, dx));
    float cy = __fadd_rn(y0, __fmul_rn((float)py, dy));
    float x = 0.0f, y = 0.0f;
    int it = 0;
    while (it < maxit) {
        float x2 = __fmul_rn(x, x), y2 = __fmul_rn(y, y);
        if (__fadd_rn(x2, y2) > 4.0f) break;
        float xy = __fmul_rn(x, y);
        y = __fadd_rn(__fadd_rn(xy, xy), cy);
        x = __fadd_rn(__fsub_rn(x2, y2), cx);
        ++it;
    }
    iters[py * w + px] = it;
}
