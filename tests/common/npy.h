// Test helper: read the .npy files of the reference cases (v1-v3 headers, little-endian, C order).
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "aotrt/ndarray.h"

namespace aotrt_test {

inline DLDataType NpyDescrToDType(const std::string& d) {
  if (d.size() < 3 || (d[0] != '<' && d[0] != '|')) throw std::runtime_error("unsupported npy descr " + d);
  int bytes = std::stoi(d.substr(2));
  switch (d[1]) {
    case 'f': return DLDataType{kDLFloat, static_cast<uint8_t>(bytes * 8), 1};
    case 'i': return DLDataType{kDLInt, static_cast<uint8_t>(bytes * 8), 1};
    case 'u': return DLDataType{kDLUInt, static_cast<uint8_t>(bytes * 8), 1};
    case 'b': return DLDataType{kDLUInt, 1, 1};
  }
  throw std::runtime_error("unsupported npy descr " + d);
}

// Value of `key` in the header dict, e.g. 'descr': '<f4' -> <f4, 'shape': (1, 3) -> (1, 3).
inline std::string NpyField(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw std::runtime_error("npy header lacks " + key);
  size_t colon = header.find(':', k);
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (header[start] == '\'') return header.substr(start + 1, header.find('\'', start + 1) - start - 1);
  if (header[start] == '(') return header.substr(start, header.find(')', start) - start + 1);
  return header.substr(start, header.find_first_of(",}", start) - start);
}

inline aotrt::NDArray ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error("not npy: " + path);
  size_t header_len, offset;
  if (bytes[6] == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    offset = 10;
  } else {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8) |
                 (static_cast<uint8_t>(bytes[10]) << 16) | (static_cast<size_t>(static_cast<uint8_t>(bytes[11])) << 24);
    offset = 12;
  }
  std::string header = bytes.substr(offset, header_len);
  if (NpyField(header, "fortran_order") != "False") throw std::runtime_error("fortran order npy: " + path);
  DLDataType dtype = NpyDescrToDType(NpyField(header, "descr"));
  std::string shape_text = NpyField(header, "shape");
  std::vector<int64_t> shape;
  for (size_t i = 1; i < shape_text.size();) {
    size_t j = shape_text.find_first_of(",)", i);
    std::string num = shape_text.substr(i, j - i);
    if (num.find_first_not_of(' ') != std::string::npos) shape.push_back(std::stoll(num));
    i = j + 1;
  }
  aotrt::NDArray arr = aotrt::NDArray::Empty(shape, dtype);
  size_t data_at = offset + header_len;
  if (bytes.size() - data_at != arr.NumBytes()) throw std::runtime_error("npy data size mismatch: " + path);
  arr.CopyFromBytes(bytes.data() + data_at, arr.NumBytes());
  return arr;
}

}  // namespace aotrt_test
