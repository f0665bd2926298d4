// struct_param: a struct passed by value as a kernel parameter (.param .align 8 .b8 p[40]) with mixed-width fields and padding. Launch: struct_param -g 1 -b 8 -a <40-byte struct, see MANIFEST comment> -a f32[8]:iota -a f32[8]:zero -o 2 ; not expressible with the current CLI (no by-value aggregate spec).
struct Params {
    int n;           // offset 0
    float scale;     // offset 4
    double offset;   // offset 8
    char tag;        // offset 16
    short s[3];      // offset 18, 20, 22
    long long big;   // offset 24
    unsigned flags;  // offset 32, struct size 40 (padded to 8)
};

extern "C" __global__ void struct_param(Params p, const float* in, float* out)
{
    int i = threadIdx.x;
    if (i >= p.n) return;
    float v = in[i] * p.scale + (float)p.offset;
    if (p.flags & (1u << i)) v = -v;
    v += (float)(p.tag + p.s[i % 3]) + (float)(p.big >> 32);
    out[i] = v;
}
