// .npy reader and writer: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include "npy.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <aotrt/error.h>

namespace aotrt {
namespace {

using aotrt::ErrorCode;

[[noreturn]] void Fail(const std::string& what, const std::string& msg) {
  throw aotrt::Error(ErrorCode::kFormatError, what + ": " + msg);
}

struct DtypeEntry {
  char kind;  // numpy kind character
  int bytes;
  DLDataType dtype;
};

const DtypeEntry kDtypes[] = {
    {'b', 1, {kDLUInt, 1, 1}},   {'i', 1, {kDLInt, 8, 1}},    {'i', 2, {kDLInt, 16, 1}},
    {'i', 4, {kDLInt, 32, 1}},   {'i', 8, {kDLInt, 64, 1}},   {'u', 1, {kDLUInt, 8, 1}},
    {'u', 2, {kDLUInt, 16, 1}},  {'u', 4, {kDLUInt, 32, 1}},  {'u', 8, {kDLUInt, 64, 1}},
    {'f', 2, {kDLFloat, 16, 1}}, {'f', 4, {kDLFloat, 32, 1}}, {'f', 8, {kDLFloat, 64, 1}},
};

DLDataType DtypeFromDescr(const std::string& descr, const std::string& what) {
  if (descr.size() < 3) Fail(what, "unsupported dtype '" + descr + "'");
  char order = descr[0];
  char kind = descr[1];
  int bytes = std::atoi(descr.c_str() + 2);
  if (descr.find_first_not_of("0123456789", 2) != std::string::npos) Fail(what, "unsupported dtype '" + descr + "'");
  for (const DtypeEntry& e : kDtypes) {
    if (e.kind != kind || e.bytes != bytes) continue;
    if (order == '>' && bytes > 1) {
      Fail(what, "big-endian data ('" + descr + "') is not supported; save it little-endian (arr.astype('<" +
                     descr.substr(1) + "'))");
    }
    if (order != '<' && order != '|' && order != '=' && order != '>') Fail(what, "bad byte order in '" + descr + "'");
    return e.dtype;
  }
  Fail(what, "unsupported dtype '" + descr +
                 "': expected bool, int8..int64, uint8..uint64, float16, float32 or float64");
}

std::string DescrFromDtype(DLDataType t) {
  for (const DtypeEntry& e : kDtypes) {
    if (e.dtype.code == t.code && e.dtype.bits == t.bits && t.lanes == 1) {
      return std::string(e.bytes == 1 ? "|" : "<") + e.kind + std::to_string(e.bytes);
    }
  }
  throw aotrt::Error(ErrorCode::kFormatError,
                     "dtype " + aotrt::DataTypeToString(t) + " cannot be written as .npy by this tool");
}

// A minimal parser of the header: a Python dict literal of str keys and str/bool/tuple values.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& what) : s_(text), what_(what) {}

  void Parse(std::string* descr, bool* fortran, std::vector<int64_t>* shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    Expect('{');
    while (true) {
      Skip();
      if (Peek() == '}') break;
      std::string key = String();
      Expect(':');
      Skip();
      if (key == "descr") {
        if (Peek() != '\'' && Peek() != '"') Fail(what_, "structured dtypes are not supported");
        *descr = String();
        have_descr = true;
      } else if (key == "fortran_order") {
        *fortran = Bool();
        have_fortran = true;
      } else if (key == "shape") {
        *shape = Tuple();
        have_shape = true;
      } else {
        Fail(what_, "unexpected key '" + key + "' in the .npy header");
      }
      Skip();
      if (Peek() == ',') ++pos_;
    }
    if (!have_descr || !have_fortran || !have_shape) {
      Fail(what_, "the .npy header lacks one of 'descr', 'fortran_order', 'shape'");
    }
  }

 private:
  char Peek() {
    if (pos_ >= s_.size()) Fail(what_, "truncated .npy header");
    return s_[pos_];
  }
  void Skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  void Expect(char c) {
    Skip();
    if (Peek() != c) Fail(what_, std::string("malformed .npy header: expected '") + c + "' at offset " +
                                    std::to_string(pos_));
    ++pos_;
  }
  std::string String() {
    Skip();
    char q = Peek();
    if (q != '\'' && q != '"') Fail(what_, "malformed .npy header: expected a string at offset " + std::to_string(pos_));
    size_t end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) Fail(what_, "malformed .npy header: unterminated string");
    std::string out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return out;
  }
  bool Bool() {
    if (s_.compare(pos_, 4, "True") == 0) return pos_ += 4, true;
    if (s_.compare(pos_, 5, "False") == 0) return pos_ += 5, false;
    Fail(what_, "malformed .npy header: fortran_order is not True/False");
  }
  std::vector<int64_t> Tuple() {
    std::vector<int64_t> dims;
    Expect('(');
    while (true) {
      Skip();
      if (Peek() == ')') break;
      size_t start = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      if (pos_ == start || pos_ - start > 15) Fail(what_, "malformed .npy header: bad shape dimension");
      dims.push_back(std::stoll(s_.substr(start, pos_ - start)));
      Skip();
      if (Peek() == 'L') ++pos_;  // Python 2 longs
      Skip();
      if (Peek() == ',') ++pos_;
    }
    ++pos_;
    return dims;
  }

  const std::string& s_;
  const std::string& what_;
  size_t pos_ = 0;
};

uint32_t ReadLe(const std::string& b, size_t off, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[off + i]);
  return v;
}

}  // namespace
}  // namespace aotrt

namespace aotrt_cli {
std::string ReadFile(const std::string& path) {
  using aotrt::ErrorCode;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw aotrt::Error(ErrorCode::kIOError, "cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw aotrt::Error(ErrorCode::kIOError, "cannot read " + path);
  return ss.str();
}
}  // namespace aotrt_cli

namespace aotrt {

aotrt::NDArray ParseNpy(const std::string& b, const std::string& what) {
  static const char kMagic[] = "\x93NUMPY";
  if (b.size() < 10 || b.compare(0, 6, kMagic, 6) != 0) Fail(what, "not a .npy file (bad magic)");
  int major = static_cast<unsigned char>(b[6]);
  if (major < 1 || major > 3) Fail(what, "unsupported .npy format version " + std::to_string(major));
  size_t len_bytes = major == 1 ? 2 : 4;
  size_t header_start = 8 + len_bytes;
  if (b.size() < header_start) Fail(what, "truncated .npy header");
  size_t header_len = ReadLe(b, 8, static_cast<int>(len_bytes));
  if (b.size() < header_start + header_len) Fail(what, "truncated .npy header");
  std::string header = b.substr(header_start, header_len);

  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  HeaderParser(header, what).Parse(&descr, &fortran, &shape);
  DLDataType dtype = DtypeFromDescr(descr, what);
  int64_t elements = aotrt::ShapeElements(shape.data(), static_cast<int>(shape.size()));
  if (fortran && shape.size() > 1 && elements > 1) {
    Fail(what, "Fortran-order arrays are not supported; save with np.ascontiguousarray(arr)");
  }
  size_t data_bytes = static_cast<size_t>(elements) * aotrt::DataTypeBytes(dtype);
  size_t data_start = header_start + header_len;
  if (b.size() - data_start < data_bytes) {
    Fail(what, "truncated data: expected " + std::to_string(data_bytes) + " bytes for shape " +
                   aotrt::ShapeToString(shape.data(), static_cast<int>(shape.size())) + " " +
                   aotrt::DataTypeToString(dtype) + ", found " + std::to_string(b.size() - data_start));
  }
  aotrt::NDArray arr = aotrt::NDArray::Empty(shape, dtype);
  if (data_bytes) std::memcpy(arr.data(), b.data() + data_start, data_bytes);
  return arr;
}

aotrt::NDArray ReadNpy(const std::string& path) { return ParseNpy(aotrt_cli::ReadFile(path), path); }

std::string SerializeNpy(const DLTensor& t) {
  if (t.device.device_type != kDLCPU || !aotrt::IsContiguous(t) || (!t.data && aotrt::TensorBytes(t) > 0)) {
    throw aotrt::Error(ErrorCode::kInvalidArgument, "SerializeNpy: the tensor must be on the CPU, contiguous and "
                                                    "have data");
  }
  std::string shape = "(";
  for (int i = 0; i < t.ndim; ++i) shape += std::to_string(t.shape[i]) + (t.ndim == 1 ? "," : i + 1 < t.ndim ? ", " : "");
  shape += ")";
  std::string dict = "{'descr': '" + DescrFromDtype(t.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that magic + version + length + header is a multiple of 64, ending in '\n'.
  bool v2 = dict.size() + 1 + 10 > 65535;
  size_t prefix = v2 ? 12 : 10;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  uint32_t len = static_cast<uint32_t>(dict.size());
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += dict;
  size_t bytes = aotrt::TensorBytes(t);
  out.append(static_cast<const char*>(t.data) + t.byte_offset, bytes);
  return out;
}

void WriteNpy(const std::string& path, const DLTensor& t) {
  std::string bytes = SerializeNpy(t);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw aotrt::Error(ErrorCode::kIOError, "cannot create " + path + ": " + std::strerror(errno));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw aotrt::Error(ErrorCode::kIOError, "cannot write " + path);
}

}  // namespace aotrt
