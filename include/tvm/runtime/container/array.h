// TVM's Array<T> (tvm/runtime/container/array.h) over aotrt::ArrayObj: an immutable list of
// objects. Mutators (push_back, Set, pop_back, clear) copy the list into a new object, so other
// handles on the old one never see a change (TVM copies on write when the object is shared).
// T is a handle type (ObjectRef, String, NDArray, Module, ...). Indexing past the end throws
// tvm::runtime::Error (kOutOfRange).
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

  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = T;
    explicit iterator(Items::const_iterator it) : it_(it) {}
    T operator*() const { return T(*it_); }
    iterator& operator++() { return ++it_, *this; }
    iterator& operator--() { return --it_, *this; }
    iterator operator+(difference_type n) const { return iterator(it_ + n); }
    difference_type operator-(const iterator& o) const { return it_ - o.it_; }
    bool operator==(const iterator& o) const { return it_ == o.it_; }
    bool operator!=(const iterator& o) const { return it_ != o.it_; }

   private:
    Items::const_iterator it_;
  };
  using const_iterator = iterator;

  Array() : Array(Items()) {}
  explicit Array(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  Array(const std::vector<T>& init) : Array(init.begin(), init.end()) {}  // NOLINT(*)
  Array(std::initializer_list<T> init) : Array(init.begin(), init.end()) {}
  Array(size_t n, const T& val) : Array(Items(n, detail::PtrOf(val))) {}
  template <typename IterType>
  Array(IterType first, IterType last) : Array(Collect(first, last)) {}

  size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  T operator[](int64_t i) const {
    if (i < 0 || i >= static_cast<int64_t>(size())) {
      throw Error(aotrt::ErrorCode::kOutOfRange, "IndexError: indexing " + std::to_string(i) +
                                                     " on an array of size " + std::to_string(size()));
    }
    return T(items()[i]);
  }
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
    (void)(*this)[i];  // bounds check
    Items v = items();
    v[i] = detail::PtrOf(value);
    data_ = aotrt::MakeObject<ArrayNode>(std::move(v));
  }
  void clear() { data_ = aotrt::MakeObject<ArrayNode>(Items()); }
  const ArrayNode* GetArrayNode() const { return static_cast<const ArrayNode*>(get()); }

 private:
  explicit Array(Items items) : ObjectRef(aotrt::MakeObject<ArrayNode>(std::move(items))) {}
  template <typename IterType>
  static Items Collect(IterType first, IterType last) {
    Items v;
    for (; first != last; ++first) v.push_back(detail::PtrOf(T(*first)));
    return v;
  }
  const Items& items() const { return static_cast<const ArrayNode*>(get())->items; }
};

}  // namespace runtime
using runtime::Array;
}  // namespace tvm
