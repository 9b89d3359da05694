// Object header tags, and the checks every handle from a caller goes through (src/ffi/handle.h).
#include "ffi/handle.h"

#include <cstring>
#include <mutex>
#include <unordered_set>

#include "base/error_util.h"

namespace aotrt {
namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
constexpr size_t kTensorOffset = offsetof(TensorObj, dl_tensor);
#pragma GCC diagnostic pop
constexpr size_t kTagOffset = 8;  // after the vtable pointer; where a DLTensor has device_type
static_assert(offsetof(DLTensor, device) == kTagOffset, "the tag must overlay DLTensor::device");
static_assert(kTensorOffset == 16, "object header layout changed");

uint32_t TagAt(const void* p) {
  uint32_t tag;
  std::memcpy(&tag, static_cast<const char*>(p) + kTagOffset, sizeof(tag));
  return tag;
}
[[maybe_unused]] bool IsTag(uint32_t tag) { return (tag & 0xFFFF0000u) == kObjectTagMagic; }

#if AOTRT_CHECKED_HANDLES
// Every live object, so that a stale handle is refused before its memory is read.
struct LiveSet {
  std::mutex mu;
  std::unordered_set<const void*> objects;
};
LiveSet& Live() {
  static LiveSet* set = new LiveSet();  // leaked: objects may die after static destructors ran
  return *set;
}
bool IsLive(const void* p) {
  LiveSet& s = Live();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.objects.count(p) != 0;
}
#else
bool IsLive(const void* p) { return IsTag(TagAt(p)); }
#endif

std::string Describe(uint32_t type_index) {
  const char* key = TypeKeyOf(type_index);
  return key ? key : StrCat("object of type index ", type_index);
}

}  // namespace

Object::Object(uint32_t type_index) : tag_(kObjectTagMagic | (type_index & 0xFFFFu)) {
#if AOTRT_CHECKED_HANDLES
  std::lock_guard<std::mutex> lock(Live().mu);
  Live().objects.insert(this);
#endif
}

Object::~Object() {
  *const_cast<volatile uint32_t*>(&tag_) = 0;  // volatile: a store before delete is otherwise elided
#if AOTRT_CHECKED_HANDLES
  std::lock_guard<std::mutex> lock(Live().mu);
  Live().objects.erase(this);
#endif
}

const char* TypeKeyOf(uint32_t type_index) {
  switch (type_index) {
    case kTypeObject: return "runtime.Object";
    case kTypeModule: return "runtime.Module";
    case kTypeNDArray: return "runtime.NDArray";
    case kTypeString: return "runtime.String";
    case kTypeArray: return "Array";
    case kTypeMap: return "Map";
    case kTypeShapeTuple: return "runtime.ShapeTuple";
    case kTypePackedFunc: return "runtime.PackedFunc";
    case kTypeADT: return "runtime.ADT";
    case kTypeProfileReport: return "runtime.profiling.Report";
    default: return nullptr;
  }
}

Object* ObjectFromHandle(const void* handle, uint32_t type_index, const char* what) {
  AOTRT_REQUIRE(handle != nullptr, kInvalidArgument, what, ": null handle");
  AOTRT_REQUIRE(IsLive(handle), kInvalidArgument, what, ": handle ", handle,
                " is not a live aotrt object (already freed, not made by aotrt, or an NDArray's DLTensor*, "
                "which TVMArrayFree releases)");
  auto* obj = static_cast<Object*>(const_cast<void*>(handle));
  AOTRT_REQUIRE(type_index == kTypeObject || obj->type_index() == type_index, kTypeMismatch, what, ": handle is a ",
                Describe(obj->type_index()), ", expected a ", Describe(type_index));
  return obj;
}

TensorObj* TensorFromHandle(const DLTensor* handle, const char* what) {
  AOTRT_REQUIRE(handle != nullptr, kInvalidArgument, what, ": null tensor handle");
  // Integer arithmetic: the header address is only formed, and read, once it is known to be one.
  const void* header = reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(handle) - kTensorOffset);
#if AOTRT_CHECKED_HANDLES
  bool is_object = !IsLive(header) && IsLive(handle);
#else
  bool is_object = IsTag(TagAt(handle));
#endif
  AOTRT_REQUIRE(!is_object, kTypeMismatch, what, ": handle is a ", Describe(static_cast<const Object*>(
                static_cast<const void*>(handle))->type_index()), " object handle, expected an NDArray");
  AOTRT_REQUIRE(IsLive(header) && TagAt(header) == (kObjectTagMagic | kTypeNDArray), kInvalidArgument, what,
                ": tensor handle ", static_cast<const void*>(handle),
                " is not a live NDArray made by aotrt (already freed, or a DLTensor the caller owns)");
  return static_cast<TensorObj*>(static_cast<Object*>(const_cast<void*>(header)));
}

}  // namespace aotrt
