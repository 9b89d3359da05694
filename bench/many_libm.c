/* A library calling about 30 libc/libm functions (25 undefined symbols once gcc inlines a few): the load-time symbol check
 * (bench_symbols) on a model with many math operators, as a TVM llvm export with transcendental ops
 * has. Never called. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

float many_libm(float x, void* p, size_t n) {
  float r = expf(x) + logf(x) + sqrtf(x) + tanhf(x) + powf(x, 2.f) + erff(x) + sinf(x) + cosf(x) + tanf(x) +
            atanf(x) + atan2f(x, 1.f) + asinf(x) + acosf(x) + sinhf(x) + coshf(x) + log2f(x) + log10f(x) +
            exp2f(x) + expm1f(x) + log1pf(x) + cbrtf(x) + floorf(x) + ceilf(x) + roundf(x) + truncf(x) +
            fmodf(x, 3.f) + hypotf(x, 2.f) + nearbyintf(x) + lgammaf(x);
  memset(p, 0, n);
  void* q = malloc(n);
  free(q);
  return r;
}
