// cg_memcpy_async: cooperative_groups::memcpy_async + cg::wait (whole block) and per-warp tiles with two batches and cg::wait_prior<1>. Launch: cg_memcpy_block -g 2 -b 96 -a s32[600]:iota -a s32[600]:zero -a s32:300 -o 1 ; cg_memcpy_tiles -g 1 -b 64 -a s32[256]:iota -a s32[128]:zero -o 1.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

// n <= 512 ints per block; out[b*n + i] = in[b*n + n-1-i] + i.
extern "C" __global__ void cg_memcpy_block(const int* in, int* out, int n)
{
    __shared__ int s[512];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, s, in + blockIdx.x * n, sizeof(int) * n);
    cg::wait(block);
    for (int i = block.thread_rank(); i < n; i += block.size())
        out[blockIdx.x * n + i] = s[n - 1 - i] + i;
}

// Each warp copies two 64-int batches (A then B) of its own 128-int window; waits for A only
// (wait_prior<1>) and uses it, then waits for B. out[w*64 + lane*2 + k] = A[..] * 10 + B[..].
extern "C" __global__ void cg_memcpy_tiles(const int* in, int* out)
{
    __shared__ int sa[2][64];
    __shared__ int sb[2][64];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned w = warp.meta_group_rank();
    const int* src = in + w * 128;
    cg::memcpy_async(warp, sa[w], src, sizeof(int) * 64);
    cg::memcpy_async(warp, sb[w], src + 64, sizeof(int) * 64);
    cg::wait_prior<1>(warp);
    int a0 = sa[w][warp.thread_rank() * 2], a1 = sa[w][warp.thread_rank() * 2 + 1];
    cg::wait(warp);
    int b0 = sb[w][warp.thread_rank() * 2], b1 = sb[w][warp.thread_rank() * 2 + 1];
    out[w * 64 + warp.thread_rank() * 2] = a0 * 10 + b0;
    out[w * 64 + warp.thread_rank() * 2 + 1] = a1 * 10 + b1;
}
