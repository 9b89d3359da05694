// TVM's ADT (tvm/runtime/container/adt.h) over aotrt::ADTObj: an immutable algebraic data type
// value, a tag and fields (relay tuples: tag 0). Indexing past the end throws tvm::runtime::Error.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tvm/runtime/object.h>

namespace tvm {
namespace runtime {

using ADTObj = aotrt::ADTObj;

class ADT : public ObjectRef {
 public:
  using ContainerType = ADTObj;
  static constexpr bool _type_is_nullable = false;
  ADT(int32_t tag, const std::vector<ObjectRef>& fields) : ADT(tag, fields.begin(), fields.end()) {}
  ADT(int32_t tag, std::initializer_list<ObjectRef> fields) : ADT(tag, fields.begin(), fields.end()) {}
  template <typename Iterator>
  ADT(int32_t tag, Iterator begin, Iterator end)
      : ObjectRef(aotrt::MakeObject<ADTObj>(tag, detail::PtrsOf<ObjectRef>(begin, end))) {}
  explicit ADT(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}

  ObjectRef operator[](size_t idx) const {
    if (idx >= size()) {
      throw Error(aotrt::ErrorCode::kOutOfRange, "Index out of bounds: " + std::to_string(idx) + " >= " +
                                                     std::to_string(size()));
    }
    return ObjectRef(node()->fields[idx]);
  }
  int32_t tag() const { return node()->tag; }
  size_t size() const { return node()->fields.size(); }
  // TVM's Tuple(fields) (a vector of fields, or an initializer list), or Tuple(field, field, ...).
  template <typename... Args>
  static ADT Tuple(Args&&... args) {
    if constexpr (std::is_constructible_v<std::vector<ObjectRef>, Args&&...>) {
      return ADT(0, std::vector<ObjectRef>(std::forward<Args>(args)...));
    } else {
      return ADT(0, std::vector<ObjectRef>{ObjectRef(detail::PtrOf(args))...});
    }
  }

 private:
  const ADTObj* node() const { return static_cast<const ADTObj*>(get()); }
};

}  // namespace runtime
using runtime::ADT;
}  // namespace tvm
