/* fills -- checks on the device that every kind of fill gives what the
 * manifest asks (fills_table.npy holds 1, 11, 21, 31): per element, bad[i]
 * gets one bit per input that is not what its fill promises (the reference
 * writes 0); keys_or gets the OR of every key (the reference writes
 * 0xffffffff: all 32 bits vary). */
extern "C" __global__ void fills_tuned(const long long *seq, const float *one,
                                       const int *small, const double *unit,
                                       const unsigned *keys, const int *idx,
                                       const long long *size, const int *table,
                                       int *bad,
                                       unsigned *keys_or, long n)
{
    unsigned acc = 0;

    for (long i = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n;
         i += (long)gridDim.x * BLOCK_SIZE) {
        int b = 0;
        b |= (seq[i] != i) << 0;
        b |= (one[i] != 1.5f) << 1;
        b |= (small[i] < -3 || small[i] > 5) << 2;
        b |= (unit[i] < 2 || unit[i] > 4) << 3;
        b |= (idx[i] < 0 || idx[i] > n - 1) << 4;
        b |= (size[i % 4] != n) << 5;
        b |= (table[i % 4] != i % 4 * 10 + 1) << 6;
        bad[i] = b;
        acc |= keys[i];
    }
    atomicOr(keys_or, acc);
}

extern "C" __global__ void fills_ref(const long long *seq, const float *one,
                                     const int *small, const double *unit,
                                     const unsigned *keys, const int *idx,
                                     const long long *size, const int *table,
                                     int *bad,
                                     unsigned *keys_or, long n)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x)
        bad[i] = 0;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *keys_or = 0xffffffffu;
}
