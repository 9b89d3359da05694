// TVM's String (tvm/runtime/container/string.h): an immutable string object, aotrt::StringObj.
#pragma once

#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <utility>

#include <tvm/runtime/object.h>

namespace tvm {
namespace runtime {

using StringObj = aotrt::StringObj;

class String : public ObjectRef {
 public:
  using ContainerType = StringObj;
  static constexpr bool _type_is_nullable = false;
  String() : String(std::string()) {}
  String(std::string other) : ObjectRef(aotrt::MakeObject<StringObj>(std::move(other))) {}  // NOLINT(*)
  String(const char* other) : String(std::string(other)) {}                                  // NOLINT(*)
  String(const char* other, size_t size) : String(std::string(other, size)) {}
  explicit String(ObjectPtr<Object> p) : ObjectRef(std::move(p)) {}

  const std::string& str() const { return static_cast<const StringObj*>(get())->value; }
  const char* c_str() const { return str().c_str(); }
  const char* data() const { return str().data(); }
  size_t size() const { return str().size(); }
  size_t length() const { return size(); }
  bool empty() const { return size() == 0; }
  char at(size_t pos) const {
    if (pos >= size()) throw Error(aotrt::ErrorCode::kOutOfRange, "String::at: index " + std::to_string(pos) +
                                                                      " out of range for a string of size " +
                                                                      std::to_string(size()));
    return data()[pos];
  }
  // -1, 0 or 1, as TVM's (NUL bytes included; a const char* ends at its first NUL).
  int compare(const String& other) const { return compare(other.str()); }
  int compare(const std::string& other) const { return Sign(str().compare(other)); }
  int compare(const char* other) const { return Sign(str().compare(other)); }
  operator std::string() const { return str(); }  // NOLINT(*)

  // True when a packed argument holds a string (kTVMStr or a String object).
  static bool CanConvertFrom(const aotrt::TVMArgValue& v) { return v.IsString(); }

 private:
  static int Sign(int c) { return (c > 0) - (c < 0); }
};

inline bool operator==(const String& a, const String& b) { return a.str() == b.str(); }
inline bool operator!=(const String& a, const String& b) { return a.str() != b.str(); }
inline bool operator<(const String& a, const String& b) { return a.str() < b.str(); }
inline bool operator>(const String& a, const String& b) { return a.str() > b.str(); }
inline bool operator<=(const String& a, const String& b) { return a.str() <= b.str(); }
inline bool operator>=(const String& a, const String& b) { return a.str() >= b.str(); }
inline String operator+(const String& a, const String& b) { return String(a.str() + b.str()); }
inline std::ostream& operator<<(std::ostream& os, const String& s) { return os << s.str(); }

}  // namespace runtime
using runtime::String;
}  // namespace tvm

template <>
struct std::hash<::tvm::runtime::String> {
  size_t operator()(const ::tvm::runtime::String& s) const { return std::hash<std::string>()(s.str()); }
};
