// bulk_copy: 1-D bulk async copies (cp.async.bulk global->shared::cluster completing on an mbarrier with expect_tx; shared->global bulk_group store + commit/wait_group.read), once through CCCL (cuda::device::memcpy_async_tx, cuda::device::barrier_arrive_tx, cuda::ptx::*) and once in raw inline PTX reusing one mbarrier over two phases (parity 0 then 1). Launch: bulk_copy_cccl -g 2 -b 128 -a s32[512]:iota -a s32[512]:zero -o 1 ; bulk_copy_ptx -g 2 -b 128 -a s32[1024]:iota -a s32[1024]:zero -o 1.
#include <cuda/barrier>
#include <cuda/ptx>

using barrier_t = cuda::barrier<cuda::thread_scope_block>;

// Block b copies in[b*256 .. +256) to shared memory, computes 2*x+1, and bulk-stores it to out.
extern "C" __global__ void bulk_copy_cccl(const int* in, int* out)
{
    __shared__ alignas(16) int smem[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier_t bar;
    int t = threadIdx.x;
    if (t == 0) {
        init(&bar, blockDim.x);
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);   // make the initialised barrier visible to the async proxy
    }
    __syncthreads();
    barrier_t::arrival_token tok;
    if (t == 0) {
        cuda::device::memcpy_async_tx(smem, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(smem)), bar);
        tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof(smem));
    } else {
        tok = bar.arrive();
    }
    bar.wait(cuda::std::move(tok));
    for (int i = t; i < 256; i += blockDim.x) smem[i] = smem[i] * 2 + 1;
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);       // generic-proxy writes -> async proxy
    __syncthreads();
    if (t == 0) {
        cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out + blockIdx.x * 256, smem, sizeof(smem));
        cuda::ptx::cp_async_bulk_commit_group();
        cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
    }
}

__device__ __forceinline__ void mbar_wait_parity(unsigned mbar, unsigned parity)
{
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(mbar), "r"(parity) : "memory");
    }
}

// Block b handles in[b*512 .. +512) in two halves of 256 ints through one mbarrier (two phases).
// out[b*512 + h*256 + i] = half_h[255 - i] + h*1000000.
extern "C" __global__ void bulk_copy_ptx(const int* in, int* out)
{
    __shared__ alignas(16) int smem[256];
    __shared__ alignas(8) unsigned long long mbar;
    unsigned t = threadIdx.x;
    unsigned mb = (unsigned)__cvta_generic_to_shared(&mbar);
    unsigned sm = (unsigned)__cvta_generic_to_shared(smem);
    const unsigned bytes = 256 * sizeof(int);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(mb), "r"(blockDim.x) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    for (unsigned h = 0; h < 2; ++h) {
        if (t == 0) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"   // sink '_' for the state
                         :: "r"(mb), "r"(bytes) : "memory");
            const int* src = in + blockIdx.x * 512 + h * 256;
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         :: "r"(sm), "l"(src), "r"(bytes), "r"(mb) : "memory");
        } else {
            unsigned long long state;
            asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(mb) : "memory");
            asm volatile("" :: "l"(state));
        }
        mbar_wait_parity(mb, h & 1);
        for (unsigned i = t; i < 256; i += blockDim.x)
            out[blockIdx.x * 512 + h * 256 + i] = smem[255 - i] + (int)h * 1000000;
        __syncthreads();     // all reads of smem done before the next bulk copy overwrites it
    }
    if (t == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(mb) : "memory");
}
