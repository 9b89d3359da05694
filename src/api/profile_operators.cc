// The C++ API's entry to the operator profiler (aotrt/profiling.h): it takes the public Executor,
// which lives in this layer; the profiler itself works on the executor module (profiling/).
#include "aotrt/model.h"
#include "aotrt/profiling.h"
#include "profiling/internal.h"

namespace aotrt {

OperatorProfile ProfileOperators(Executor& executor, const OperatorProfileOptions& opt) {
  return profiling_internal::ProfileExecutorModule(executor.module(), opt);
}

}  // namespace aotrt
