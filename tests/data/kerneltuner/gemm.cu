// gemm.cu -- stub of CLBlast's Xgemm (see gemm.ini): it declares the entry
// points so that the manifest loads; the measurements come from the
// recorded journals. Not a kernel to run.
extern "C" __global__ void Xgemm(int m, int n, int k, float alpha,
                                 float beta, const float *a, const float *b,
                                 float *c)
{
}

extern "C" __global__ void Xgemm_ref(int m, int n, int k, float alpha,
                                     float beta, const float *a,
                                     const float *b, float *c)
{
}
