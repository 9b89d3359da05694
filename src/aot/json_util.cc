#include "aot/json_util.h"

#include <cstdio>

namespace aotrt {

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string TensorSpecsJson(const std::vector<TensorSpec>& specs) {
  std::string names, shapes, dtypes;
  for (size_t i = 0; i < specs.size(); ++i) {
    const char* sep = i ? ", " : "";
    names += sep + JsonQuote(specs[i].name);
    dtypes += sep + JsonQuote(DataTypeToString(specs[i].dtype));
    shapes += sep + std::string("[");
    for (size_t d = 0; d < specs[i].shape.size(); ++d) shapes += (d ? ", " : "") + std::to_string(specs[i].shape[d]);
    shapes += "]";
  }
  return "{\"names\": [" + names + "], \"shapes\": [" + shapes + "], \"dtypes\": [" + dtypes + "]}";
}

}  // namespace aotrt
