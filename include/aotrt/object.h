// Reference-counted objects: the base of modules, packed functions, NDArrays and arrays.
//
// An Object starts with a reference count of zero; ObjectPtr<T> holds one reference. The count is
// atomic, so references may be taken and dropped on any thread; the object itself states its own
// thread-safety. A C handle (TVMModuleHandle, TVMFunctionHandle, TVMObjectHandle) is an Object*
// carrying one reference owned by whoever received it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <dlpack/dlpack.h>

#include "aotrt/export.h"

namespace aotrt {

// Type indices, as TVM numbers its static runtime types (TVMObjectGetTypeIndex). kTypeNone is
// what type_index() reads from memory that is not a live object.
enum TypeIndex : uint32_t {
  kTypeObject = 0,
  kTypeModule = 1,
  kTypeNDArray = 2,
  kTypeString = 3,
  kTypeArray = 4,
  kTypeMap = 5,
  kTypeShapeTuple = 6,
  kTypePackedFunc = 7,
  kTypeADT = 10,
  kTypeProfileReport = 11,  // "runtime.profiling.Report" (aotrt/profiling.h)
  kTypeStaticEnd = 64,
  kTypeNone = 0xFFFF,
};

// Every object's header holds a tag word at byte offset 8 (after the vtable pointer): kObjectTagMagic
// in the high 16 bits, the type index in the low 16; a DLTensor's device type there tells a tensor
// handle from an object handle (src/ffi/handle.h). Destruction overwrites the tag: a stale handle
// whose memory was not reused reads as kTypeNone.
constexpr uint32_t kObjectTagMagic = 0xA07B0000u;

class AOTRT_API Object {
 public:
  explicit Object(uint32_t type_index);  // type_index < 0xFFFF
  // For a type registered at run time (RegisterObjectType): constructed as kTypeObject, given its
  // index by whoever made it (tvm::runtime::make_object) before the object is shared.
  Object() : Object(kTypeObject) {}
  void InitTypeIndex(uint32_t type_index) { tag_ = kObjectTagMagic | (type_index & 0xFFFFu); }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object();

  uint32_t type_index() const { return (tag_ & 0xFFFF0000u) == kObjectTagMagic ? tag_ & 0xFFFFu : kTypeNone; }
  void IncRef() { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  void DecRef() {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  int32_t use_count() const { return ref_count_.load(std::memory_order_relaxed); }
  // Take a reference only if the object is still alive (count > 0): for registries holding weak
  // pointers. False when the object is already being destroyed.
  bool TryIncRef() {
    int32_t c = ref_count_.load(std::memory_order_relaxed);
    while (c > 0) {
      if (ref_count_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel)) return true;
    }
    return false;
  }

 private:
  uint32_t tag_;
  std::atomic<int32_t> ref_count_{0};
};

// The part of an NDArray object the FFI layer needs (the rest, and its C handle: aotrt/ndarray.h).
class AOTRT_API TensorObj : public Object {
 public:
  DLTensor dl_tensor{};
  // The object behind a handle this library made, unchecked; handles from a caller go through
  // the checks of src/ffi/handle.h first.
  static TensorObj* FromHandle(DLTensor* handle) {
    // offsetof on a polymorphic class is conditionally supported; GCC and Clang give the layout offset.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
    return reinterpret_cast<TensorObj*>(reinterpret_cast<char*>(handle) - offsetof(TensorObj, dl_tensor));
#pragma GCC diagnostic pop
  }

 protected:
  TensorObj() : Object(kTypeNDArray) {}
};

// Object types registered at run time (TVM's TypeIndex::kDynamic): indices from kTypeStaticEnd on, in
// registration order. Registering a key again returns its index. Thread-safe. Throws kOutOfRange
// past 0xFFFF types.
AOTRT_API uint32_t RegisterObjectType(const char* key, uint32_t parent_index);
// Whether type `type_index` is `ancestor` or derives from it (every type derives from kTypeObject).
AOTRT_API bool ObjectTypeDerivesFrom(uint32_t type_index, uint32_t ancestor);
// TVM's type key of a type index ("runtime.Module", or a registered key), or null for an unknown index.
AOTRT_API const char* ObjectTypeKey(uint32_t type_index);

// Intrusive strong reference. Not thread-safe as a variable (like std::shared_ptr).
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() = default;
  ObjectPtr(std::nullptr_t) {}  // NOLINT(runtime/explicit)
  explicit ObjectPtr(T* p) : p_(p) {
    if (p_) p_->IncRef();
  }
  ObjectPtr(const ObjectPtr& o) : ObjectPtr(o.p_) {}
  ObjectPtr(ObjectPtr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U>
  ObjectPtr(const ObjectPtr<U>& o) : ObjectPtr(static_cast<T*>(o.get())) {}  // NOLINT
  ~ObjectPtr() { reset(); }
  ObjectPtr& operator=(ObjectPtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  void reset() {
    if (p_) p_->DecRef();
    p_ = nullptr;
  }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  bool operator==(const ObjectPtr& o) const { return p_ == o.p_; }
  bool operator!=(const ObjectPtr& o) const { return p_ != o.p_; }
  // Give up the reference without dropping it (for handing a handle to C).
  T* release() {
    T* p = p_;
    p_ = nullptr;
    return p;
  }
  // Adopt a reference that is already counted (from a C handle).
  static ObjectPtr Adopt(T* p) {
    ObjectPtr r;
    r.p_ = p;
    return r;
  }

 private:
  T* p_ = nullptr;
};

template <typename T, typename... Args>
ObjectPtr<T> MakeObject(Args&&... args) {
  return ObjectPtr<T>(new T(std::forward<Args>(args)...));
}

}  // namespace aotrt
