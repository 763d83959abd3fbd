/* An expansion bomb: B20 is 2^20 copies of one statement, which NVRTC
 * takes minutes and gigabytes to compile. The compile time limit test
 * (adversarial row check_compile_time_limit, test_compile_procs) kills it. */
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
    B20
    if (i < n)
        out[i] = in[i] + acc * 0;
}

extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
