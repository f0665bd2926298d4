// syncwarp: __syncwarp(mask) after divergence: even and odd lanes take different paths, exchange through shared memory with partial-mask __syncwarp, then a full-warp __syncwarp after reconvergence. Launch: syncwarp_exchange -g 1 -b 64 -a s32[64]:iota -a s32[128]:zero -o 1.
extern "C" __global__ void syncwarp_exchange(const int* in, int* out)
{
    __shared__ int buf[64];
    __shared__ int buf2[64];
    int tid = threadIdx.x;
    int lane = tid & 31;
    int v = in[tid];
    int r1;
    if (lane & 1) {
        buf[tid] = v * 10;
        __syncwarp(0xAAAAAAAAu);                   // odd lanes only
        r1 = buf[(tid & ~31) | ((lane + 2) & 31)];   // next odd lane
    } else {
        buf[tid] = v * 100;
        __syncwarp(0x55555555u);                   // even lanes only
        r1 = buf[(tid & ~31) | ((lane + 30) & 31)];  // previous even lane
    }
    buf2[tid] = r1;
    __syncwarp();                                  // whole warp, reconverged
    out[tid] = buf2[tid ^ 1];
    // lanes < 16 form one group, the others another; each reverses its half
    if (lane < 16) {
        buf[tid] = r1 + 1;
        __syncwarp(0x0000FFFFu);
        out[64 + tid] = buf[(tid & ~31) | (15 - lane)];
    } else {
        buf[tid] = r1 - 1;
        __syncwarp(0xFFFF0000u);
        out[64 + tid] = buf[(tid & ~31) | (47 - lane)];
    }
}
