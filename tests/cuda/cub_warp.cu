// cub_warp: cub::WarpReduce<int> Sum and Reduce(min), cub::WarpScan<int> InclusiveSum/ExclusiveSum, and 16-thread logical warps (WarpReduce<int,16>, WarpScan<int,16>). Launch: cub_warp -g 1 -b 64 -a s32[64]:... -a s32[384]:zero -o 1 (6 results per thread; reductions valid in lane 0 of each logical warp); see MANIFEST.
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda/functional>

extern "C" __global__ void cub_warp(const int* in, int* out)
{
    using WR = cub::WarpReduce<int>;
    using WS = cub::WarpScan<int>;
    using WR16 = cub::WarpReduce<int, 16>;
    using WS16 = cub::WarpScan<int, 16>;
    __shared__ typename WR::TempStorage wr[2];
    __shared__ typename WS::TempStorage ws[2];
    __shared__ typename WR16::TempStorage wr16[4];
    __shared__ typename WS16::TempStorage ws16[4];
    int t = threadIdx.x;
    int w = t / 32, h = t / 16;
    int v = in[t];
    int sum = WR(wr[w]).Sum(v);
    int mn = WR(wr[w]).Reduce(v, cuda::minimum<int>{});
    int incl, excl;
    WS(ws[w]).InclusiveSum(v, incl);
    WS(ws[w]).ExclusiveSum(v, excl);
    int sum16 = WR16(wr16[h]).Sum(v);
    int incl16;
    WS16(ws16[h]).InclusiveSum(v, incl16);
    int* o = out + t * 6;
    o[0] = ((t & 31) == 0) ? sum : 0;
    o[1] = ((t & 31) == 0) ? mn : 0;
    o[2] = incl;
    o[3] = excl;
    o[4] = ((t & 15) == 0) ? sum16 : 0;
    o[5] = incl16;
}
