// TVM's object system (tvm/runtime/object.h) for deployment programs: the objects ARE aotrt's
// (aotrt/object.h, aotrt/container.h), reference-counted and immutable after construction;
// ObjectRef and its subclasses are handles holding one reference each.
//
// Type tests (as<T>(), Downcast, IsInstance) compare the object's type index with the node type's
// (TypeIndexOf below; a program's own types, TVM_DECLARE_*_OBJECT_INFO, are registered with aotrt
// at first use and match their subclasses). Downcast to a type the object is not throws tvm::runtime::Error
// (kTypeMismatch) "Downcast from <key> to <key> failed." where TVM aborts.
// Thread-safety: handles may be copied and dropped on any thread; the objects are immutable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/logging.h>

#include "aotrt/container.h"
#include "aotrt/module.h"
#include "aotrt/ndarray.h"
#include "aotrt/object.h"
#include "aotrt/packed_func.h"

namespace tvm {
namespace runtime {

using Object = aotrt::Object;
template <typename T>
using ObjectPtr = aotrt::ObjectPtr<T>;

// TVM's static type indices (aotrt numbers its types the same way); kDynamic: registered at run time.
struct TypeIndex {
  enum : uint32_t {
    kRoot = aotrt::kTypeObject,
    kRuntimeModule = aotrt::kTypeModule,
    kRuntimeNDArray = aotrt::kTypeNDArray,
    kRuntimeString = aotrt::kTypeString,
    kRuntimeArray = aotrt::kTypeArray,
    kRuntimeMap = aotrt::kTypeMap,
    kRuntimeShapeTuple = aotrt::kTypeShapeTuple,
    kRuntimePackedFunc = aotrt::kTypePackedFunc,
    kRuntimeADT = aotrt::kTypeADT,
    kStaticIndexEnd = aotrt::kTypeStaticEnd,
    kDynamic = kStaticIndexEnd,
  };
};

template <typename T>
class Optional;

namespace detail {

// The type index of one of aotrt's node types; Object matches every object.
template <typename T, typename = void>
struct ObjectTypeIndex;
template <uint32_t kIndex>
struct ObjectTypeIndexIs : std::integral_constant<uint32_t, kIndex> {};
template <> struct ObjectTypeIndex<aotrt::Object> : ObjectTypeIndexIs<aotrt::kTypeObject> {};
template <> struct ObjectTypeIndex<aotrt::StringObj> : ObjectTypeIndexIs<aotrt::kTypeString> {};
template <> struct ObjectTypeIndex<aotrt::ArrayObj> : ObjectTypeIndexIs<aotrt::kTypeArray> {};
template <> struct ObjectTypeIndex<aotrt::MapObj> : ObjectTypeIndexIs<aotrt::kTypeMap> {};
template <> struct ObjectTypeIndex<aotrt::ShapeTupleObj> : ObjectTypeIndexIs<aotrt::kTypeShapeTuple> {};
template <> struct ObjectTypeIndex<aotrt::ADTObj> : ObjectTypeIndexIs<aotrt::kTypeADT> {};
template <> struct ObjectTypeIndex<aotrt::ModuleNode> : ObjectTypeIndexIs<aotrt::kTypeModule> {};
template <> struct ObjectTypeIndex<aotrt::PackedFuncObj> : ObjectTypeIndexIs<aotrt::kTypePackedFunc> {};
template <> struct ObjectTypeIndex<aotrt::NDArrayObj> : ObjectTypeIndexIs<aotrt::kTypeNDArray> {};
// A node type with only a static _type_index (not declared with TVM_DECLARE_*_OBJECT_INFO).
template <typename T>
struct ObjectTypeIndex<T, std::void_t<decltype(T::_type_index)>> : ObjectTypeIndexIs<T::_type_index> {};
template <typename T, typename = void>
struct StaticIndex : ObjectTypeIndexIs<TypeIndex::kDynamic> {};  // TVM's Object::_type_index
template <typename T>
struct StaticIndex<T, std::void_t<decltype(T::_type_index)>> : ObjectTypeIndexIs<T::_type_index> {};
template <typename T, typename = void>
struct IsDeclared : std::false_type {};  // declared with TVM_DECLARE_*_OBJECT_INFO
template <typename T>
struct IsDeclared<T, std::void_t<decltype(T::RuntimeTypeIndex())>> : std::true_type {};

template <typename T>
uint32_t TypeIndexOf() {
  if constexpr (IsDeclared<T>::value) {
    return T::RuntimeTypeIndex();
  } else {
    return ObjectTypeIndex<T>::value;
  }
}

// A declared type's index: its static _type_index, or one registered under its _type_key.
template <typename T, typename Parent>
uint32_t RegisterType() {
  if (StaticIndex<T>::value != TypeIndex::kDynamic) return StaticIndex<T>::value;
  return aotrt::RegisterObjectType(T::_type_key, TypeIndexOf<Parent>());
}

template <typename T>
bool IsInstance(const Object* p) {
  if (p == nullptr) return false;
  const uint32_t index = TypeIndexOf<T>(), found = p->type_index();
  return index == aotrt::kTypeObject || found == index ||
         (found >= aotrt::kTypeStaticEnd && aotrt::ObjectTypeDerivesFrom(found, index));
}

// TVM's type key of a type index ("runtime.NDArray", "Map", a registered key, ...).
inline const char* TypeKey(uint32_t index) {
  const char* key = aotrt::ObjectTypeKey(index);
  return key ? key : "an object of another type";
}

[[noreturn]] inline void ThrowTypeMismatch(const std::string& where, const Object* found, uint32_t expected) {
  throw Error(aotrt::ErrorCode::kTypeMismatch, where + ": expected " + TypeKey(expected) + ", got " +
                                                   (found ? TypeKey(found->type_index()) : "null"));
}

}  // namespace detail

// A node type of the program's own: a static _type_key (and _type_index: TypeIndex::kDynamic, the
// default, or a fixed index), then one of these in the class body; make_object gives it its index.
#define TVM_DECLARE_BASE_OBJECT_INFO(TypeName, ParentType)                                        \
  static uint32_t RuntimeTypeIndex() {                                                            \
    static const uint32_t index = ::tvm::runtime::detail::RegisterType<TypeName, ParentType>(); \
    return index;                                                                                 \
  }
#define TVM_DECLARE_FINAL_OBJECT_INFO(TypeName, ParentType) \
  static constexpr bool _type_final = true;                 \
  TVM_DECLARE_BASE_OBJECT_INFO(TypeName, ParentType)
#define TVM_STR_CONCAT_(a, b) a##b
#define TVM_STR_CONCAT(a, b) TVM_STR_CONCAT_(a, b)
#define TVM_ATTRIBUTE_UNUSED __attribute__((unused))
#define TVM_REGISTER_OBJECT_TYPE(TypeName)                                            \
  static TVM_ATTRIBUTE_UNUSED uint32_t TVM_STR_CONCAT(__make_Object_tid, __COUNTER__) = \
      TypeName::RuntimeTypeIndex()
// The handle type of a node type of the program's own.
#define TVM_DEFINE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName)                          \
  TypeName() = default;                                                                          \
  explicit TypeName(::tvm::runtime::ObjectPtr<::tvm::runtime::Object> n) : ParentType(n) {}      \
  const ObjectName* operator->() const { return static_cast<const ObjectName*>(data_.get()); }   \
  const ObjectName* get() const { return operator->(); }                                         \
  using ContainerType = ObjectName;
#define TVM_DEFINE_MUTABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName)             \
  TypeName() = default;                                                                     \
  explicit TypeName(::tvm::runtime::ObjectPtr<::tvm::runtime::Object> n) : ParentType(n) {} \
  ObjectName* operator->() const { return static_cast<ObjectName*>(data_.get()); }          \
  using ContainerType = ObjectName;

// A handle on any object (null when default-constructed).
class ObjectRef {
 public:
  using ContainerType = Object;
  static constexpr bool _type_is_nullable = true;
  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr<Object> data) : data_(std::move(data)) {}

  bool same_as(const ObjectRef& other) const { return data_ == other.data_; }
  bool operator==(const ObjectRef& other) const { return data_ == other.data_; }
  bool operator!=(const ObjectRef& other) const { return data_ != other.data_; }
  bool operator<(const ObjectRef& other) const { return data_.get() < other.data_.get(); }
  bool defined() const { return static_cast<bool>(data_); }
  const Object* get() const { return data_.get(); }
  const Object* operator->() const { return data_.get(); }
  bool unique() const { return data_ && data_->use_count() == 1; }
  int use_count() const { return data_ ? data_->use_count() : 0; }
  // The node as `const T*` (nullptr when the object is not a T) for a node type T; for a handle
  // type T (String, NDArray, ...), an Optional<T> (empty when not).
  template <typename T>
  auto as() const {
    if constexpr (std::is_base_of_v<Object, T>) {
      return detail::IsInstance<T>(data_.get()) ? static_cast<const T*>(data_.get()) : nullptr;
    } else {
      return detail::IsInstance<typename T::ContainerType>(data_.get()) ? Optional<T>(T(data_)) : Optional<T>();
    }
  }
  // The reference held (aotrt's pointer type).
  const ObjectPtr<Object>& object_ptr() const { return data_; }

 protected:
  ObjectPtr<Object> data_;
};

namespace detail {
// The object behind any handle type (ObjectRef and its subclasses, or the Module, NDArray and
// PackedFunc handles, which are aotrt's).
inline ObjectPtr<Object> PtrOf(const ObjectRef& r) { return r.object_ptr(); }
inline ObjectPtr<Object> PtrOf(const aotrt::Module& m) { return m.node(); }
inline ObjectPtr<Object> PtrOf(const aotrt::NDArray& a) { return a.object(); }
inline ObjectPtr<Object> PtrOf(const aotrt::PackedFunc& f) { return f.object(); }
}  // namespace detail

template <typename SubRef, typename BaseRef>
SubRef Downcast(BaseRef ref) {
  ObjectPtr<Object> p = detail::PtrOf(ref);
  using Node = typename SubRef::ContainerType;
  if (p ? !detail::IsInstance<Node>(p.get()) : !SubRef::_type_is_nullable) {
    throw Error(aotrt::ErrorCode::kTypeMismatch, std::string("Downcast from ") +
                                                     (p ? detail::TypeKey(p->type_index()) : "nullptr") + " to " +
                                                     detail::TypeKey(detail::TypeIndexOf<Node>()) +
                                                     " failed.");
  }
  return SubRef(std::move(p));
}

// A new handle on the object `ptr` points to (which must be alive).
template <typename RefType, typename ObjType>
RefType GetRef(const ObjType* ptr) {
  return RefType(ObjectPtr<Object>(const_cast<ObjType*>(ptr)));
}

template <typename T, typename... Args>
ObjectPtr<T> make_object(Args&&... args) {
  ObjectPtr<T> p = aotrt::MakeObject<T>(std::forward<Args>(args)...);
  if constexpr (detail::IsDeclared<T>::value) p->InitTypeIndex(T::RuntimeTypeIndex());
  return p;
}

// Hashing and equality by identity, for unordered containers of handles.
struct ObjectPtrHash {
  size_t operator()(const ObjectRef& a) const { return std::hash<const Object*>()(a.get()); }
};
struct ObjectPtrEqual {
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return a.same_as(b); }
};

}  // namespace runtime
using runtime::Downcast;
using runtime::GetRef;
using runtime::make_object;
using runtime::Object;
using runtime::ObjectPtr;
using runtime::ObjectPtrEqual;
using runtime::ObjectPtrHash;
using runtime::ObjectRef;
}  // namespace tvm

#include <tvm/runtime/container/optional.h>
