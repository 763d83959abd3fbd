/* hotspot -- a stub with the signature of BAT's calculate_temp
 * (batbench/benchmarks/hotspot/hotspot_kernel.cu): hotspot.ini is there
 * to build BAT's space, not to tune. */
extern "C" __global__ void calculate_temp(float *power, float *temp,
                                          float *temp_dst, const float Rx_1,
                                          const float Ry_1, const float Rz_1,
                                          const float step_div_cap)
{
}

extern "C" __global__ void calculate_temp_ref(float *power, float *temp,
                                              float *temp_dst,
                                              const float Rx_1,
                                              const float Ry_1,
                                              const float Rz_1,
                                              const float step_div_cap)
{
}
