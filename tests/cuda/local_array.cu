// local_array: a per-thread array indexed by a runtime value (lives in .local, ld.local/st.local through a __local_depot). Launch: local_array -g 1 -b 16 -a s32[16]:... -a s32[16]:zero -a s32:16 -o 1 ; see MANIFEST.
extern "C" __global__ void local_array(const int* idx, int* out, int n)
{
    int tid = threadIdx.x;
    if (tid >= n) return;
    int arr[16];
    for (int k = 0; k < 16; ++k) arr[k] = k * k + tid;
    int j = idx[tid] & 15;
    arr[j] += 1000;               // dynamic store
    arr[(j * 7 + 3) & 15] -= 7;   // another dynamic store
    int acc = 0;
    for (int k = 0; k <= j; ++k)  // runtime trip count, dynamic loads
        acc += arr[(k + tid) & 15];
    out[tid] = acc + arr[j];
}
