// TVM's object system (tvm/runtime/object.h) for deployment programs: the objects ARE aotrt's
// (aotrt/object.h, aotrt/container.h), reference-counted and immutable after construction; an
// ObjectRef holds one reference. Type tests (as<T>(), Downcast, IsInstance) compare type indices; a
// program's own types (TVM_DECLARE_*_OBJECT_INFO) are registered with aotrt at first use and match
// their subclasses. Downcast to another type throws kTypeMismatch "Downcast from <key> to <key>
// failed.". Handles may be copied and dropped on any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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

// The type index of a node type T: TypeIndexOf<T>(). A program's own type (TVM_DECLARE_*_OBJECT_INFO)
// has RuntimeTypeIndex(), a type may fix a static _type_index, aotrt's are told by their class
// (aotrt::Object matches every object).
constexpr uint32_t BuiltinIndex(const aotrt::Object*) { return aotrt::kTypeObject; }
constexpr uint32_t BuiltinIndex(const aotrt::StringObj*) { return aotrt::kTypeString; }
constexpr uint32_t BuiltinIndex(const aotrt::ArrayObj*) { return aotrt::kTypeArray; }
constexpr uint32_t BuiltinIndex(const aotrt::MapObj*) { return aotrt::kTypeMap; }
constexpr uint32_t BuiltinIndex(const aotrt::ShapeTupleObj*) { return aotrt::kTypeShapeTuple; }
constexpr uint32_t BuiltinIndex(const aotrt::ADTObj*) { return aotrt::kTypeADT; }
constexpr uint32_t BuiltinIndex(const aotrt::ModuleNode*) { return aotrt::kTypeModule; }
constexpr uint32_t BuiltinIndex(const aotrt::PackedFuncObj*) { return aotrt::kTypePackedFunc; }
constexpr uint32_t BuiltinIndex(const aotrt::TensorObj*) { return aotrt::kTypeNDArray; }
template <typename T>
constexpr auto StaticIndex(int) -> decltype(uint32_t(T::_type_index)) { return T::_type_index; }
template <typename T>
constexpr uint32_t StaticIndex(...) { return TypeIndex::kDynamic; }
template <typename T>
auto IndexOf(int) -> decltype(uint32_t(T::RuntimeTypeIndex())) { return T::RuntimeTypeIndex(); }
template <typename T>
uint32_t IndexOf(...) {
  return StaticIndex<T>(0) != TypeIndex::kDynamic ? StaticIndex<T>(0) : BuiltinIndex(static_cast<const T*>(nullptr));
}
template <typename T>
uint32_t TypeIndexOf() { return IndexOf<T>(0); }

// A declared type's index: its static _type_index, or one registered under its _type_key.
template <typename T, typename Parent>
uint32_t RegisterType() {
  if (StaticIndex<T>(0) != TypeIndex::kDynamic) return StaticIndex<T>(0);
  return aotrt::RegisterObjectType(T::_type_key, TypeIndexOf<Parent>());
}

template <typename T>
bool IsInstance(const Object* p) {
  if (p == nullptr) return false;
  const uint32_t index = TypeIndexOf<T>(), found = p->type_index();
  return index == aotrt::kTypeObject || found == index ||
         (found >= aotrt::kTypeStaticEnd && aotrt::ObjectTypeDerivesFrom(found, index));
}

// `i` when it indexes `size` items, else kOutOfRange "IndexError: indexing <i> on an array of size <size>".
inline size_t CheckIndex(int64_t i, size_t size) {
  if (i >= 0 && static_cast<uint64_t>(i) < size) return static_cast<size_t>(i);
  throw Error(ErrorCode::kOutOfRange, "IndexError: indexing " + std::to_string(i) + " on an array of size " +
                                          std::to_string(size));
}

// TVM's type key of a type index ("runtime.NDArray", "Map", a registered key, ...).
inline const char* TypeKey(uint32_t index) {
  const char* key = aotrt::ObjectTypeKey(index);
  return key ? key : "an object of another type";
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
#define TVM_DEFINE_OBJECT_REF_METHODS_(TypeName, ParentType, ObjectName, Const)              \
  TypeName() = default;                                                                     \
  explicit TypeName(::tvm::runtime::ObjectPtr<::tvm::runtime::Object> n) : ParentType(n) {} \
  Const ObjectName* operator->() const { return static_cast<Const ObjectName*>(data_.get()); } \
  Const ObjectName* get() const { return operator->(); }                                    \
  using ContainerType = ObjectName;
#define TVM_DEFINE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName) \
  TVM_DEFINE_OBJECT_REF_METHODS_(TypeName, ParentType, ObjectName, const)
#define TVM_DEFINE_MUTABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName) \
  TVM_DEFINE_OBJECT_REF_METHODS_(TypeName, ParentType, ObjectName, )

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
// The iterator of Array<T> and Map<K, V>: over their items, each converted when read (to V: T, or
// the pair of K and V).
template <typename It, typename V>
class ItemIterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = V;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = V;
  explicit ItemIterator(It it) : it_(it) {}
  V operator*() const {
    if constexpr (std::is_same_v<typename It::value_type, ObjectPtr<Object>>) {
      return V(*it_);
    } else {
      return V(typename V::first_type(it_->first), typename V::second_type(it_->second));
    }
  }
  ItemIterator& operator++() { return ++it_, *this; }
  ItemIterator& operator--() { return --it_, *this; }
  ItemIterator operator+(difference_type n) const { return ItemIterator(it_ + n); }
  difference_type operator-(const ItemIterator& o) const { return it_ - o.it_; }
  bool operator==(const ItemIterator& o) const { return it_ == o.it_; }
  bool operator!=(const ItemIterator& o) const { return it_ != o.it_; }

 private:
  It it_;
};

// The object behind any handle type (ObjectRef and its subclasses, or the Module, NDArray and
// PackedFunc handles, which are aotrt's).
inline ObjectPtr<Object> PtrOf(const ObjectRef& r) { return r.object_ptr(); }
inline ObjectPtr<Object> PtrOf(const aotrt::Module& m) { return m.node(); }
inline ObjectPtr<Object> PtrOf(const aotrt::NDArray& a) { return a.object(); }
inline ObjectPtr<Object> PtrOf(const aotrt::PackedFunc& f) { return f.object(); }
// What TVM's NDArray, Module and PackedFunc offer over aotrt's handle `Base` of `Node` objects.
template <typename Base, typename Node>
class HandleOf : public Base {
 public:
  using ContainerType = Node;
  static constexpr bool _type_is_nullable = true;
  HandleOf() = default;
  HandleOf(std::nullptr_t) {}                       // NOLINT(*)
  HandleOf(Base other) : Base(std::move(other)) {}  // NOLINT(*)
  explicit HandleOf(ObjectPtr<Object> p) : Base(ObjectPtr<Node>(static_cast<Node*>(p.get()))) {}
  operator ObjectRef() const { return ObjectRef(PtrOf(*this)); }  // NOLINT(*)
  const Node* get() const { return static_cast<const Node*>(PtrOf(*this).get()); }
  bool same_as(const HandleOf& other) const { return get() == other.get(); }
  int use_count() const { return get() ? get()->use_count() : 0; }
  bool operator==(std::nullptr_t) const { return !this->defined(); }
  bool operator!=(std::nullptr_t) const { return this->defined(); }
};

// The objects of the handles in [first, last), each converted to T first.
template <typename T, typename It>
std::vector<ObjectPtr<Object>> PtrsOf(It first, It last) {
  std::vector<ObjectPtr<Object>> out;
  for (; first != last; ++first) out.push_back(PtrOf(T(*first)));
  return out;
}

// `p` as the handle type T, checking the object's type (null only for a nullable T). Throws
// kTypeMismatch "<where>: expected <key>, got <key>", or with no `where` "Downcast from <key> to <key> failed.".
template <typename T>
T CheckedCast(ObjectPtr<Object> p, const std::string& where = "") {
  using Node = typename T::ContainerType;
  if (p ? IsInstance<Node>(p.get()) : T::_type_is_nullable) return T(std::move(p));
  std::string found = p ? TypeKey(p->type_index()) : where.empty() ? "nullptr" : "null";
  throw Error(aotrt::ErrorCode::kTypeMismatch, where.empty() ? "Downcast from " + found + " to " +
                                                                  TypeKey(TypeIndexOf<Node>()) + " failed."
                                                            : where + ": expected " + TypeKey(TypeIndexOf<Node>()) +
                                                                  ", got " + found);
}
}  // namespace detail

template <typename SubRef, typename BaseRef>
SubRef Downcast(BaseRef ref) { return detail::CheckedCast<SubRef>(detail::PtrOf(ref)); }

// A new handle on the object `ptr` points to (which must be alive).
template <typename RefType, typename ObjType>
RefType GetRef(const ObjType* ptr) { return RefType(ObjectPtr<Object>(const_cast<ObjType*>(ptr))); }

template <typename T, typename... Args>
ObjectPtr<T> make_object(Args&&... args) {
  ObjectPtr<T> p = aotrt::MakeObject<T>(std::forward<Args>(args)...);
  p->InitTypeIndex(detail::TypeIndexOf<T>());
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
