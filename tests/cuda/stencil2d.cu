// stencil2d: 2-D 5-point stencil out = c + 0.25*(l+r+u+d-4c) on interior points, boundary copied; 2-D grid and block. Launch: stencil5 -g 2,2 -b 8,8 -a f32[HxW]:... -a f32[HxW]:zero -a s32:W -a s32:H -o 1 (W=12, H=10; input literal list in MANIFEST).
extern "C" __global__ void stencil5(const float* in, float* out, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int c = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[c] = in[c];
        return;
    }
    float l = in[c - 1], r = in[c + 1], u = in[c - nx], d = in[c + nx];
    float v = in[c];
    out[c] = v + 0.25f * (((l + r) + (u + d)) - 4.0f * v);
}
