/* late: fast at its default configuration (VW=1), which is also its
 * reference, and an expansion bomb (see ../compile_slow/bomb.cu) at VW=2:
 * --evaluate of a profile that names VW=2 compiles it outside the compile
 * pool, under the compile time limit. */
#define B0 acc = acc * 3 + (int)i;
#define B1 B0 B0
#define B2 B1 B1
#define B3 B2 B2
#define B4 B3 B3
#define B5 B4 B4
#define B6 B5 B5
#define B7 B6 B6
#define B8 B7 B7
#define B9 B8 B8
#define B10 B9 B9
#define B11 B10 B10
#define B12 B11 B11
#define B13 B12 B12
#define B14 B13 B13
#define B15 B14 B14
#define B16 B15 B15
#define B17 B16 B16
#define B18 B17 B17
#define B19 B18 B18
#define B20 B19 B19

extern "C" __global__ void copy_tuned(const int *in, int *out, long n)
{
    long i = ((long)blockIdx.x * BLOCK_SIZE + threadIdx.x) * VW;
    int acc = 0;
#if VW == 2
    B20
#endif
    for (int v = 0; v < VW; v++)
        if (i + v < n)
            out[i + v] = in[i + v] + acc * 0;
}
