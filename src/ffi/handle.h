// Validation of raw C handles before anything behind them is used (issue 12).
//
// Objects are told apart by the tag word in their header (aotrt/object.h), never by reading
// outside them: a tensor handle is first read at offset 8, which lies inside an object header and
// inside a DLTensor alike, and the NDArray header before it is read only once the handle is known
// not to be an object handle. Destruction overwrites the tag, so most stale handles are refused;
// but reading a freed handle is still undefined behaviour. Builds with AOTRT_CHECKED_HANDLES (on in
// sanitizer builds) also keep a registry of live objects and consult it first, so a stale or
// foreign handle is refused without touching its memory.
// Thread-safe. Errors: kInvalidArgument (null, freed or foreign handle), kTypeMismatch (another
// kind of object), each naming `what`.
#pragma once

#include <cstdint>

#include "aotrt/object.h"

namespace aotrt {

// The live object behind `handle`, of type `type_index` (kTypeObject accepts any type).
Object* ObjectFromHandle(const void* handle, uint32_t type_index, const char* what);
// The NDArray behind a tensor handle (the address of its DLTensor) this library made.
TensorObj* TensorFromHandle(const DLTensor* handle, const char* what);
// The object behind the handle of a C value of an object code (kTVMNDArrayHandle: a tensor
// handle; kTVMObjectHandle, kTVMModuleHandle, kTVMPackedFuncHandle: any object); null for null.
Object* ObjectFromValue(void* handle, int code, const char* what);

}  // namespace aotrt
