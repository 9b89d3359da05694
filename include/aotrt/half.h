/*
 * IEEE binary16 (float16) conversions that model libraries expect from the runtime (ABI.md 10.2,
 * "Half precision"). Defined weak with default visibility and exported from libaotrt.so, so a
 * process that already has them (from compiler-rt, or another runtime loaded first) keeps its own.
 * Pure functions of their argument: thread-safe, no errors, no allocation.
 */
#ifndef AOTRT_HALF_H_
#define AOTRT_HALF_H_

#include <stdint.h>
#include <tvm/runtime/c_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief float32 -> binary16 bits, round to nearest even. Overflow gives +-inf, results below the
 *  smallest normal become subnormals (or +-0), NaN stays NaN: quiet, sign and the top 9 payload
 *  bits kept (compiler-rt's __truncsfhf2; the same bits as the x86 F16C instruction). */
TVM_DLL uint16_t __gnu_f2h_ieee(float value);

/*! \brief binary16 bits -> float32, exact for every input (NaN payload and sign kept, not quieted:
 *  compiler-rt's __extendhfsf2). */
TVM_DLL float __gnu_h2f_ieee(uint16_t bits);

/*! \brief float64 -> binary16 bits, rounded once (not through float32), as __gnu_f2h_ieee. */
TVM_DLL uint16_t __truncdfhf2(double value);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // AOTRT_HALF_H_
