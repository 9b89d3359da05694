// TVM's Array<T> (tvm/runtime/container/array.h) of handles T over aotrt::ArrayObj: immutable;
// push_back, Set, pop_back and clear copy the list into a new object (other handles keep the old
// one). Indexing past the end throws kOutOfRange.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <tvm/runtime/object.h>

namespace tvm {
namespace runtime {

using ArrayNode = aotrt::ArrayObj;

template <typename T>
class Array : public ObjectRef {
  using Items = std::vector<ObjectPtr<Object>>;

 public:
  using ContainerType = ArrayNode;
  using value_type = T;
  static constexpr bool _type_is_nullable = false;

  using iterator = detail::ItemIterator<Items::const_iterator, T>;
  using const_iterator = iterator;

  Array() : Array(Items()) {}
  explicit Array(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  Array(const std::vector<T>& init) : Array(init.begin(), init.end()) {}  // NOLINT(*)
  Array(std::initializer_list<T> init) : Array(init.begin(), init.end()) {}
  Array(size_t n, const T& val) : Array(Items(n, detail::PtrOf(val))) {}
  template <typename IterType>
  Array(IterType first, IterType last) : Array(detail::PtrsOf<T>(first, last)) {}

  size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  T operator[](int64_t i) const { return T(items()[detail::CheckIndex(i, size())]); }
  T at(int64_t i) const { return (*this)[i]; }
  T front() const { return (*this)[0]; }
  T back() const { return (*this)[static_cast<int64_t>(size()) - 1]; }
  iterator begin() const { return iterator(items().begin()); }
  iterator end() const { return iterator(items().end()); }

  void push_back(const T& item) {
    Items v = items();
    v.push_back(detail::PtrOf(item));
    data_ = aotrt::MakeObject<ArrayNode>(std::move(v));
  }
  void pop_back() {
    Items v = items();
    if (v.empty()) throw Error(aotrt::ErrorCode::kOutOfRange, "cannot pop_back because array is empty");
    v.pop_back();
    data_ = aotrt::MakeObject<ArrayNode>(std::move(v));
  }
  void Set(int64_t i, T value) {
    Items v = items();
    v[detail::CheckIndex(i, v.size())] = detail::PtrOf(value);
    data_ = aotrt::MakeObject<ArrayNode>(std::move(v));
  }
  void clear() { data_ = aotrt::MakeObject<ArrayNode>(Items()); }
  const ArrayNode* GetArrayNode() const { return static_cast<const ArrayNode*>(get()); }

 private:
  explicit Array(Items items) : ObjectRef(aotrt::MakeObject<ArrayNode>(std::move(items))) {}
  const Items& items() const { return static_cast<const ArrayNode*>(get())->items; }
};

}  // namespace runtime
using runtime::Array;
}  // namespace tvm
