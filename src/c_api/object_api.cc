// C ABI: generic objects and type introspection.
#include <cstring>

#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/object.h"
#include "base/error_util.h"
#include "c_api/api_guard.h"
#include "ffi/handle.h"

using namespace aotrt;

extern "C" {

int TVMObjectGetTypeIndex(TVMObjectHandle obj, unsigned* out_tindex) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out_tindex, kInvalidArgument, "TVMObjectGetTypeIndex: null out");
  *out_tindex = ObjectFromHandle(obj, kTypeObject, "TVMObjectGetTypeIndex")->type_index();
  AOTRT_API_END();
}

int TVMObjectTypeKey2Index(const char* type_key, unsigned* out_tindex) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(type_key && out_tindex, kInvalidArgument, "TVMObjectTypeKey2Index: null argument");
  for (uint32_t i = 0; i < kTypeNone; ++i) {
    const char* key = ObjectTypeKey(i);
    if (!key && i >= kTypeStaticEnd) break;
    if (key && std::strcmp(key, type_key) == 0) {
      *out_tindex = i;
      return 0;
    }
  }
  AOTRT_THROW(kNotFound, "Cannot find type ", type_key);
  AOTRT_API_END();
}

int TVMObjectTypeIndex2Key(unsigned tindex, char** out_type_key) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(out_type_key, kInvalidArgument, "TVMObjectTypeIndex2Key: null out");
  const char* key = ObjectTypeKey(tindex);
  AOTRT_REQUIRE(key, kNotFound, "Unknown type index ", tindex);
  *out_type_key = strdup(key);
  AOTRT_REQUIRE(*out_type_key, kOutOfMemory, "TVMObjectTypeIndex2Key: out of memory");
  AOTRT_API_END();
}

int TVMObjectRetain(TVMObjectHandle obj) {
  AOTRT_API_BEGIN();
  ObjectFromHandle(obj, kTypeObject, "TVMObjectRetain")->IncRef();
  AOTRT_API_END();
}

int TVMObjectFree(TVMObjectHandle obj) {
  AOTRT_API_BEGIN();
  if (obj) ObjectFromHandle(obj, kTypeObject, "TVMObjectFree")->DecRef();  // TVM accepts null here
  AOTRT_API_END();
}

int TVMObjectDerivedFrom(uint32_t child, uint32_t parent, int* is_derived) {
  AOTRT_API_BEGIN();
  AOTRT_REQUIRE(is_derived, kInvalidArgument, "TVMObjectDerivedFrom: null out");
  *is_derived = ObjectTypeDerivesFrom(child, parent);
  AOTRT_API_END();
}

// The array TVMFuncCall returns lives in thread-local storage and is not freed (as in TVM).
int TVMByteArrayFree(TVMByteArray*) { return 0; }

}  // extern "C"
