// Reading JSON documents of export formats (a C-interface archive's metadata.json, a graph JSON)
// with errors that name the document and the field. Over nlohmann-json; internal to the library.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "aotrt/dtype.h"
#include "base/error_util.h"

namespace aotrt {

using Json = nlohmann::json;

// Parse `text`; kFormatError naming `what` for invalid JSON or nesting over 64 levels. The nesting
// is measured in one pass before parsing: a parser callback would make loading quadratic (at each
// object's end, nlohmann-json's callback parser scans the enclosing array for discarded values).
inline Json ParseJsonText(std::string_view text, const std::string& what) {
  constexpr int kMaxDepth = 64;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      i += c == '\\';
      in_string = c != '"';
    } else if (c == '"') {
      in_string = true;
    } else {
      depth += (c == '[' || c == '{') - (c == ']' || c == '}');
      AOTRT_REQUIRE(depth <= kMaxDepth, kFormatError, what, ": nested over ", kMaxDepth, " levels");
    }
  }
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    AOTRT_THROW(kFormatError, what, ": not valid JSON: ", e.what());
  }
}

// obj[key]; kFormatError when `obj` (named `where`) is not an object or lacks `key`.
inline const Json& JsonField(const Json& obj, const char* key, const std::string& where, const std::string& what) {
  AOTRT_REQUIRE(obj.is_object(), kFormatError, what, ": ", where, " is not an object");
  auto it = obj.find(key);
  AOTRT_REQUIRE(it != obj.end(), kFormatError, what, ": ", where, " has no field \"", key, "\"");
  return *it;
}

inline std::string JsonString(const Json& v, const std::string& where, const std::string& what) {
  AOTRT_REQUIRE(v.is_string(), kFormatError, what, ": ", where, " is not a string");
  return v.get<std::string>();
}

// A dtype string ("float32"); kFormatError naming `where` for another string or another value.
inline DLDataType JsonDataType(const Json& v, const std::string& where, const std::string& what) {
  std::string s = JsonString(v, where, what);
  return AsFormatError([&] { return DataTypeFromString(s); }, what, ": ", where, ": ");
}

// A non-negative integer no larger than `max`.
inline uint64_t JsonCount(const Json& v, uint64_t max, const std::string& where, const std::string& what) {
  AOTRT_REQUIRE(v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0), kFormatError, what, ": ",
                where, " is not a non-negative integer (", v.dump(), ")");
  uint64_t n = v.get<uint64_t>();
  AOTRT_REQUIRE(n <= max, kFormatError, what, ": ", where, " = ", n, " is over the limit of ", max);
  return n;
}

}  // namespace aotrt
