// cg_tiles: cooperative_groups this_thread_block().sync(), tiled_partition<16> and <4> (static tiles), tile.sync(), cg::reduce (plus, greater), cg::inclusive_scan / exclusive_scan, tile.shfl, tile.ballot, meta_group_rank. Launch: cg_tiles -g 2 -b 64 -a s32[128]:iota -a s32[512]:zero -o 1 (4 results per thread).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_tiles(const int* in, int* out)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ int s[256];
    unsigned t = block.thread_rank();
    int gi = blockIdx.x * blockDim.x + t;
    s[t] = in[gi];
    block.sync();
    int v = s[(t + 1) % blockDim.x];          // neighbour's value, visible after block.sync()

    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    int sum16 = cg::reduce(t16, v, cg::plus<int>());
    int scan16 = cg::inclusive_scan(t16, v);
    t16.sync();

    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
    int max4 = cg::reduce(t4, v * ((t & 1) ? -1 : 1), cg::greater<int>());
    int ex4 = cg::exclusive_scan(t4, v);
    int from_first = t4.shfl(v, 0);
    unsigned ballot = t4.ballot(v & 1);

    int* o = out + gi * 4;
    o[0] = sum16 + (int)t16.meta_group_rank() * 1000000;
    o[1] = scan16;
    o[2] = max4 * 1000 + (int)t4.meta_group_rank();
    o[3] = ex4 + from_first * 100 + (int)ballot * 100000;
}
