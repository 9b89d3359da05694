// C ABI: generic objects and type introspection.
#include <cstdlib>
#include <cstring>

#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/object.h"
#include "base/error_util.h"
#include "c_api/api_guard.h"

using namespace aotrt;

namespace {

struct TypeName {
  uint32_t index;
  const char* key;
};
constexpr TypeName kTypes[] = {{kTypeObject, "runtime.Object"}, {kTypeModule, "runtime.Module"},
                               {kTypeNDArray, "runtime.NDArray"}, {kTypeString, "runtime.String"},
                               {kTypeArray, "Array"},             {kTypeMap, "Map"},
                               {kTypeShapeTuple, "runtime.ShapeTuple"}, {kTypePackedFunc, "runtime.PackedFunc"},
                               {kTypeADT, "runtime.ADT"}};

}  // namespace

extern "C" {

int TVMObjectGetTypeIndex(TVMObjectHandle obj, unsigned* out_tindex) {
  AOTRT_API_BEGIN();
  AOTRT_CHECK_HANDLE(obj, "TVMObjectGetTypeIndex");
  AOTRT_REQUIRE(out_tindex, kInvalidArgument, "TVMObjectGetTypeIndex: null out");
  *out_tindex = static_cast<Object*>(obj)->type_index();
  AOTRT_API_END();
}

int TVMObjectTypeKey2Index(const char* type_key, unsigned* out_tindex) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(type_key && out_tindex, kInvalidArgument, "TVMObjectTypeKey2Index: null argument");
  for (const TypeName& t : kTypes) {
    if (std::strcmp(t.key, type_key) == 0) {
      *out_tindex = t.index;
      return 0;
    }
  }
  AOTRT_THROW(kNotFound, "Cannot find type ", type_key);
  AOTRT_API_END();
}

int TVMObjectTypeIndex2Key(unsigned tindex, char** out_type_key) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out_type_key, kInvalidArgument, "TVMObjectTypeIndex2Key: null out");
  for (const TypeName& t : kTypes) {
    if (t.index == tindex) {
      *out_type_key = strdup(t.key);
      AOTRT_REQUIRE(*out_type_key, kOutOfMemory, "TVMObjectTypeIndex2Key: out of memory");
      return 0;
    }
  }
  AOTRT_THROW(kNotFound, "Unknown type index ", tindex);
  AOTRT_API_END();
}

int TVMObjectRetain(TVMObjectHandle obj) {
  AOTRT_API_BEGIN();
  AOTRT_CHECK_HANDLE(obj, "TVMObjectRetain");
  static_cast<Object*>(obj)->IncRef();
  AOTRT_API_END();
}

int TVMObjectFree(TVMObjectHandle obj) {
  AOTRT_API_BEGIN();
  if (obj) static_cast<Object*>(obj)->DecRef();  // TVM accepts null here
  AOTRT_API_END();
}

int TVMObjectDerivedFrom(uint32_t child, uint32_t parent, int* is_derived) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(is_derived, kInvalidArgument, "TVMObjectDerivedFrom: null out");
  *is_derived = child == parent || parent == kTypeObject;
  AOTRT_API_END();
}

int TVMByteArrayFree(TVMByteArray* arr) {
  AOTRT_API_BEGIN();
  // The array TVMFuncCall returns lives in thread-local storage and is not freed (as in TVM).
  (void)arr;
  AOTRT_API_END();
}

}  // extern "C"
