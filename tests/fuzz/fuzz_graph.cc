// libFuzzer target: the graph executor's readers of untrusted bytes, the graph JSON
// (graph/graph_json.h) and the params file (LoadParams, aotrt/ndarray.h), on the same bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "aotrt/error.h"
#include "aotrt/ndarray.h"
#include "graph/graph_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)aotrt::ParseGraphJson(std::string_view(reinterpret_cast<const char*>(data), size), "graph JSON");
  } catch (const aotrt::Error&) {
  }
  try {
    (void)aotrt::LoadParams(data, size);
  } catch (const aotrt::Error&) {
  }
  return 0;
}
