// TVM's ShapeTuple (tvm/runtime/container/shape_tuple.h): an immutable list of int64 dimensions,
// aotrt::ShapeTupleObj. Also converts to std::vector<int64_t>, what NDArray::Shape() returned
// before TVM v0.9. Indexing past the end throws tvm::runtime::Error (kOutOfRange).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <tvm/runtime/object.h>

namespace tvm {
namespace runtime {

using ShapeTupleObj = aotrt::ShapeTupleObj;

class ShapeTuple : public ObjectRef {
 public:
  using index_type = int64_t;
  using ContainerType = ShapeTupleObj;
  static constexpr bool _type_is_nullable = false;
  ShapeTuple() : ShapeTuple(std::vector<index_type>()) {}
  ShapeTuple(std::vector<index_type> shape)  // NOLINT(*)
      : ObjectRef(aotrt::MakeObject<ShapeTupleObj>(std::move(shape))) {}
  ShapeTuple(std::initializer_list<index_type> shape) : ShapeTuple(std::vector<index_type>(shape)) {}
  template <typename IterType>
  ShapeTuple(IterType begin, IterType end) : ShapeTuple(std::vector<index_type>(begin, end)) {}
  explicit ShapeTuple(ObjectPtr<Object> p) : ObjectRef(std::move(p)) {}

  const std::vector<index_type>& dims() const { return static_cast<const ShapeTupleObj*>(get())->dims; }
  const index_type* data() const { return dims().data(); }
  size_t size() const { return dims().size(); }
  bool empty() const { return dims().empty(); }
  index_type operator[](size_t idx) const { return dims()[detail::CheckIndex(static_cast<int64_t>(idx), size())]; }
  index_type at(size_t idx) const { return (*this)[idx]; }
  index_type front() const { return at(0); }
  index_type back() const { return at(size() - 1); }
  const index_type* begin() const { return data(); }
  const index_type* end() const { return data() + size(); }
  operator std::vector<index_type>() const { return dims(); }  // NOLINT(*)
};

inline std::ostream& operator<<(std::ostream& os, const ShapeTuple& shape) {
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape.dims()[i];
  return os << ']';
}

}  // namespace runtime
using runtime::ShapeTuple;
}  // namespace tvm
