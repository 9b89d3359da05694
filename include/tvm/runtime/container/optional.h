// TVM's Optional<T> (tvm/runtime/container/optional.h): a nullable handle of type T.
// value() on an empty Optional throws tvm::runtime::Error where TVM aborts.
#pragma once

#include <utility>

#include <tvm/runtime/object.h>

namespace tvm {
namespace runtime {

struct NullOptType {};
constexpr NullOptType NullOpt{};

template <typename T>
class Optional : public ObjectRef {
  template <typename U>
  using EqualityWith = decltype(std::declval<T>() == std::declval<const U&>());

 public:
  using ContainerType = typename T::ContainerType;
  Optional() = default;
  Optional(std::nullptr_t) {}  // NOLINT(*)
  Optional(NullOptType) {}     // NOLINT(*)
  Optional(T other) : ObjectRef(detail::PtrOf(other)) {}  // NOLINT(*)
  explicit Optional(ObjectPtr<Object> p) : ObjectRef(std::move(p)) {}

  T value() const {
    if (!data_) throw Error("Back optional access");
    return T(data_);
  }
  T value_or(T default_value) const { return data_ ? T(data_) : default_value; }
  T operator*() const { return value(); }
  explicit operator bool() const { return defined(); }
  bool operator==(std::nullptr_t) const { return !defined(); }
  bool operator!=(std::nullptr_t) const { return defined(); }
  // As TVM: equal when both are empty, or both hold values T's == finds equal.
  bool operator==(const Optional& other) const {
    return same_as(other) || (defined() && other.defined() && value() == other.value());
  }
  bool operator!=(const Optional& other) const { return !(*this == other); }
  template <typename U, typename = EqualityWith<U>>
  bool operator==(const U& other) const { return defined() && value() == other; }
  template <typename U, typename = EqualityWith<U>>
  bool operator!=(const U& other) const { return !(*this == other); }
};

}  // namespace runtime
using runtime::NullOpt;
using runtime::Optional;
}  // namespace tvm
