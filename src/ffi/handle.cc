// Object header tags, and the checks every handle from a caller goes through (src/ffi/handle.h).
#include "ffi/handle.h"

#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_set>

#include <tvm/runtime/c_runtime_api.h>

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

// The types registered at run time; index kTypeStaticEnd + i. A deque: keys keep their address.
struct TypeTable {
  std::mutex mu;
  std::deque<std::pair<std::string, uint32_t>> types;  // key, parent index
};
TypeTable& Types() {
  static TypeTable* table = new TypeTable();  // leaked: objects may die after static destructors ran
  return *table;
}

std::string Describe(uint32_t type_index) {
  const char* key = ObjectTypeKey(type_index);
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

uint32_t RegisterObjectType(const char* key, uint32_t parent_index) {
  TypeTable& t = Types();
  std::lock_guard<std::mutex> lock(t.mu);
  for (size_t i = 0; i < t.types.size(); ++i) {
    if (t.types[i].first == key) return kTypeStaticEnd + static_cast<uint32_t>(i);
  }
  AOTRT_REQUIRE(kTypeStaticEnd + t.types.size() < kTypeNone, kOutOfRange, "too many object types to register ", key);
  t.types.emplace_back(key, parent_index);
  return kTypeStaticEnd + static_cast<uint32_t>(t.types.size() - 1);
}

bool ObjectTypeDerivesFrom(uint32_t type_index, uint32_t ancestor) {
  TypeTable& t = Types();
  std::lock_guard<std::mutex> lock(t.mu);
  while (type_index != ancestor && ancestor != kTypeObject) {
    if (type_index < kTypeStaticEnd || type_index - kTypeStaticEnd >= t.types.size()) return false;
    type_index = t.types[type_index - kTypeStaticEnd].second;
  }
  return true;
}

const char* ObjectTypeKey(uint32_t type_index) {
  static const char* const kStatic[] = {  // by index, to kTypeProfileReport; 8 and 9 are unused
      "runtime.Object",     "runtime.Module",     "runtime.NDArray", "runtime.String", "Array", "Map",
      "runtime.ShapeTuple", "runtime.PackedFunc", nullptr,           nullptr,          "runtime.ADT",
      "runtime.profiling.Report"};
  static_assert(sizeof(kStatic) / sizeof(kStatic[0]) == kTypeProfileReport + 1, "a key per static type");
  if (type_index <= kTypeProfileReport) return kStatic[type_index];
  TypeTable& t = Types();
  std::lock_guard<std::mutex> lock(t.mu);
  size_t i = type_index - kTypeStaticEnd;
  return type_index >= kTypeStaticEnd && i < t.types.size() ? t.types[i].first.c_str() : nullptr;
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

Object* ObjectFromValue(void* handle, int code, const char* what) {
  if (handle == nullptr) return nullptr;
  if (code == kTVMNDArrayHandle) return TensorFromHandle(static_cast<DLTensor*>(handle), what);
  return ObjectFromHandle(handle, kTypeObject, what);
}

}  // namespace aotrt
