/* sort -- every segment of seg keys sorted ascending, a block per segment:
 * the segment is loaded into shared memory and sorted by a bitonic network
 * (seg a power of two), BLOCK_SIZE threads each taking the compared pairs
 * t, t + BLOCK_SIZE, ... of every step, UNROLL of them unrolled. */
extern "C" __global__ void sort_tuned(const unsigned *keys, unsigned *out,
                                      int seg)
{
    extern __shared__ unsigned s[];
    const unsigned *in = keys + (long)blockIdx.x * seg;
    unsigned half = (unsigned)seg / 2;

    for (int i = threadIdx.x; i < seg; i += BLOCK_SIZE)
        s[i] = in[i];
    __syncthreads();
    for (unsigned k = 2; k <= (unsigned)seg; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
#pragma unroll UNROLL
            for (unsigned t = threadIdx.x; t < half; t += BLOCK_SIZE) {
                unsigned i = (t / j) * 2 * j + t % j, l = i + j;
                unsigned a = s[i], b = s[l];
                if ((a > b) == ((i & k) == 0)) {
                    s[i] = b;
                    s[l] = a;
                }
            }
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < seg; i += BLOCK_SIZE)
        out[(long)blockIdx.x * seg + i] = s[i];
}

/* A rank sort: key i goes where the keys of its segment that are smaller,
 * or equal and before it, put it. Obviously correct, O(seg) per key. */
extern "C" __global__ void sort_ref(const unsigned *keys, unsigned *out,
                                    int seg)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long base = i / seg * seg;
    unsigned key = keys[i]; /* grid * block = n: seg is a multiple of 256 */
    int rank = 0;

    for (long j = base; j < base + seg; j++)
        rank += keys[j] < key || (keys[j] == key && j < i);
    out[base + rank] = key;
}
