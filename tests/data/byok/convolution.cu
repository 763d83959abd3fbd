/*
 * 2D convolution with a 17x17 filter, tuned by hand the way Kernel Tuner's
 * convolution example is: the tunable knobs are plain macros with
 * defaults, the filter sits in constant memory, and the kernel has C++
 * linkage. Nothing here was written for autotune: convolution.ini, beside
 * it, is all that was added.
 */

#define image_height 4096
#define image_width 4096
#define filter_height 17
#define filter_width 17

#define border_height ((filter_height / 2) * 2)
#define border_width ((filter_width / 2) * 2)
#define input_height (image_height + border_height)
#define input_width (image_width + border_width)

#ifndef block_size_x
#define block_size_x 16
#endif
#ifndef block_size_y
#define block_size_y 16
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif
#ifndef tile_size_y
#define tile_size_y 1
#endif
#ifndef use_padding
#define use_padding 1
#endif
#ifndef read_only
#define read_only 0
#endif

#define sh_height (block_size_y * tile_size_y + border_height)
#define sh_width_raw (block_size_x * tile_size_x + border_width)
/* One extra column when the row length is a multiple of the 32 banks. */
#if use_padding == 1
#define sh_width (sh_width_raw + (sh_width_raw % 32 == 0 ? 1 : 0))
#else
#define sh_width sh_width_raw
#endif

__constant__ float d_filter[33 * 33]; /* room for the largest filter */

__global__ void convolution_kernel(float *output, const float *input,
                                   const float *filter)
{
    int ty = threadIdx.y;
    int tx = threadIdx.x;
    int by = blockIdx.y * block_size_y * tile_size_y;
    int bx = blockIdx.x * block_size_x * tile_size_x;

    __shared__ float sh_input[sh_height][sh_width];

    /* Stage the block's input tile, borders included. */
#pragma unroll
    for (int i = ty; i < sh_height; i += block_size_y) {
#pragma unroll
        for (int j = tx; j < sh_width_raw; j += block_size_x) {
            int y = by + i, x = bx + j;
            float v = 0.0f;
            if (y < input_height && x < input_width) {
#if read_only == 1
                v = __ldg(&input[y * input_width + x]);
#else
                v = input[y * input_width + x];
#endif
            }
            sh_input[i][j] = v;
        }
    }
    __syncthreads();

    float sum[tile_size_y][tile_size_x];
#pragma unroll
    for (int yi = 0; yi < tile_size_y; yi++)
#pragma unroll
        for (int xi = 0; xi < tile_size_x; xi++)
            sum[yi][xi] = 0.0f;

    for (int i = 0; i < filter_height; i++) {
        for (int j = 0; j < filter_width; j++) {
#pragma unroll
            for (int yi = 0; yi < tile_size_y; yi++) {
#pragma unroll
                for (int xi = 0; xi < tile_size_x; xi++) {
                    sum[yi][xi] += sh_input[ty + yi * block_size_y + i]
                                           [tx + xi * block_size_x + j] *
                                   d_filter[i * filter_width + j];
                }
            }
        }
    }

#pragma unroll
    for (int yi = 0; yi < tile_size_y; yi++) {
#pragma unroll
        for (int xi = 0; xi < tile_size_x; xi++) {
            int y = by + ty + yi * block_size_y;
            int x = bx + tx + xi * block_size_x;
            if (y < image_height && x < image_width)
                output[y * image_width + x] = sum[yi][xi];
        }
    }
}

/* The obvious version, one output pixel per thread, filter from global
 * memory: what the tuned kernel is checked against. */
__global__ void convolution_naive(float *output, const float *input,
                                  const float *filter)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (y < image_height && x < image_width) {
        float sum = 0.0f;
        for (int i = 0; i < filter_height; i++)
            for (int j = 0; j < filter_width; j++)
                sum += input[(y + i) * input_width + x + j] *
                       filter[i * filter_width + j];
        output[y * image_width + x] = sum;
    }
}
