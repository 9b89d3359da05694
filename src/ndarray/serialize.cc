#include "ndarray/serialize.h"
#include "base/device.h"

#include <dmlc/memory_io.h>

#include <unordered_map>

namespace aotrt {
namespace {

constexpr uint64_t kNDArrayMagic = 0xDD5E40F096B4A13FULL;
constexpr uint64_t kParamsMagic = 0xF7E58D4F05049CB7ULL;

void WriteNDArray(dmlc::Stream* s, const DLTensor& t) {
  AOTRT_REQUIRE(IsAcceptedCpuDevice(t.device), kInvalidArgument, "can only save CPU tensors, got device type ",
                static_cast<int>(t.device.device_type), " id ", t.device.device_id);
  AOTRT_REQUIRE(IsContiguous(t), kInvalidArgument, "can only save contiguous tensors");
  s->Write(kNDArrayMagic);
  s->Write(uint64_t{0});
  DLDevice cpu{kDLCPU, 0};
  s->Write(&cpu, sizeof(cpu));
  s->Write(t.ndim);
  s->Write(&t.dtype, sizeof(t.dtype));
  if (t.ndim) s->Write(t.shape, sizeof(int64_t) * t.ndim);
  int64_t nbytes = static_cast<int64_t>(TensorBytes(t));
  s->Write(nbytes);
  if (nbytes) s->Write(static_cast<const char*>(t.data) + t.byte_offset, nbytes);
}

// The header of the NDArray at the reader's position, validated, with its data known to follow in
// full; the reader is left at the data. Throws kFormatError.
NDArrayHeader ReadNDArrayHeader(BoundedReader& r) {
  auto invalid = [&r](const auto&... why) { r.Fail(StrCat("Invalid DLTensor file format: ", why...)); };
  uint64_t magic = r.Read<uint64_t>("NDArray magic");
  if (magic != kNDArrayMagic) invalid("bad NDArray magic 0x", Hex{magic}, ", expected 0x", Hex{kNDArrayMagic});
  r.Read<uint64_t>("NDArray reserved field");
  // Read as plain integers: any 32-bit value may be in the file, not only DLDeviceType's.
  int32_t device_type = r.Read<int32_t>("NDArray device type");
  r.Read<int32_t>("NDArray device id");
  if (device_type != kDLCPU) invalid("device type ", device_type, ", expected 1 (CPU)");
  int32_t ndim = r.Read<int32_t>("NDArray ndim");
  if (ndim < 0 || ndim > 64) invalid("ndim ", ndim, " not in [0, 64]");
  DLDataType dtype = r.Read<DLDataType>("NDArray dtype");
  if (dtype.bits == 0 || dtype.lanes == 0) {
    invalid("invalid dtype (code ", int(dtype.code), ", bits ", int(dtype.bits), ", lanes ", dtype.lanes, ")");
  }
  std::vector<int64_t> shape(ndim);
  r.ReadBytes(shape.data(), sizeof(int64_t) * ndim, "NDArray shape");
  for (int64_t d : shape) {
    if (d < 0) invalid("negative dimension in shape ", ShapeToString(shape.data(), ndim));
  }
  int64_t nbytes = r.Read<int64_t>("NDArray data size");
  DLTensor probe{nullptr, DLDevice{}, ndim, dtype, shape.data(), nullptr, 0};
  size_t expected;
  try {
    expected = TensorBytes(probe);
  } catch (const Error& e) {
    r.Fail(StrCat("Invalid DLTensor file format: ", e.what()));
  }
  if (nbytes < 0 || static_cast<uint64_t>(nbytes) != expected) {
    invalid("data size ", nbytes, " does not match shape ", ShapeToString(shape.data(), ndim), " ",
            DataTypeToString(dtype), " (", expected, " bytes)");
  }
  if (expected > r.remaining()) invalid("data of ", expected, " bytes truncated, ", r.remaining(), " left");
  return NDArrayHeader{std::move(shape), dtype, expected};
}

// The names of `params` and their arrays, with the u64 count of both before the names (a
// factory's payload) or between the names and the arrays (a params file).
void WriteNamedArrays(dmlc::Stream* s, const std::vector<NamedArray>& params, bool count_first) {
  std::vector<std::string> names;
  for (const NamedArray& p : params) names.push_back(p.name);
  if (count_first) s->Write(static_cast<uint64_t>(names.size()));
  s->Write(names);
  if (!count_first) s->Write(static_cast<uint64_t>(names.size()));
  for (const NamedArray& p : params) WriteNDArray(s, p.array.tensor());
}

// The arrays following `names`, one per name. One that does not read throws kFormatError
// "<label> '<name>': <why>", through r.Fail (which adds the reader's name and offset) when `at_byte`.
std::vector<NamedArray> ReadNamedArrays(BoundedReader& r, const std::vector<std::string>& names, const char* label,
                                        bool at_byte) {
  std::vector<NamedArray> out;
  out.reserve(names.size());
  for (const std::string& name : names) {
    try {
      out.push_back({name, ReadNDArray(r)});
    } catch (const Error& e) {
      if (at_byte) r.Fail(StrCat(label, " '", name, "': ", e.what()));
      AOTRT_THROW(kFormatError, label, " '", name, "': ", e.what());
    }
  }
  return out;
}

}  // namespace

NDArray ReadNDArray(BoundedReader& r) {
  NDArrayHeader h = ReadNDArrayHeader(r);
  NDArray arr = NDArray::Empty(h.shape, h.dtype);
  r.ReadBytes(arr.data(), h.bytes, "NDArray data");
  return arr;
}

SerializedNDArray ViewSerializedNDArray(const void* data, size_t size) {
  SpanStream s(data, size);
  BoundedReader r(&s, size, "NDArray");
  NDArrayHeader h = ReadNDArrayHeader(r);
  return SerializedNDArray{std::move(h), static_cast<const char*>(data) + r.offset()};
}

void WriteFactoryParams(dmlc::Stream* s, const std::vector<NamedArray>& params) { WriteNamedArrays(s, params, true); }

std::vector<NamedArray> ReadFactoryParams(BoundedReader& r) {
  uint64_t count = r.ReadCount("params count", 8);
  std::vector<std::string> names = r.ReadStringVector("params names");
  if (names.size() != count) r.Fail(StrCat("params count ", count, " does not match ", names.size(), " names"));
  return ReadNamedArrays(r, names, "param", true);
}

std::string SaveNDArray(const DLTensor& t) {
  std::string out;
  dmlc::MemoryStringStream mem(&out);
  WriteNDArray(&mem, t);
  return out;
}

NDArray LoadNDArray(const void* data, size_t size) {
  SpanStream s(data, size);
  BoundedReader r(&s, size, "NDArray");
  return ReadNDArray(r);
}

std::string SaveParams(const std::vector<NamedArray>& params) {
  std::string out;
  dmlc::MemoryStringStream mem(&out);
  dmlc::Stream* s = &mem;  // the base class declares the typed Write overloads
  s->Write(kParamsMagic);
  s->Write(uint64_t{0});
  WriteNamedArrays(s, params, false);
  return out;
}

std::vector<NamedArray> LoadParams(const void* data, size_t size) {
  SpanStream s(data, size);
  BoundedReader r(&s, size, "params");
  auto invalid = [&r](const auto&... why) { r.Fail(StrCat("Invalid parameters file format: ", why...)); };
  uint64_t magic = r.Read<uint64_t>("params magic");
  if (magic != kParamsMagic) invalid("bad magic 0x", Hex{magic}, ", expected 0x", Hex{kParamsMagic});
  r.Read<uint64_t>("params reserved field");
  std::vector<std::string> names = r.ReadStringVector("params names");
  uint64_t count = r.ReadCount("params array count", 8);
  if (count != names.size()) invalid(names.size(), " names but ", count, " arrays");
  std::unordered_map<std::string, uint64_t> seen;
  for (uint64_t i = 0; i < count; ++i) {
    if (names[i].empty()) invalid("parameter ", i, " has an empty name");
    auto [it, fresh] = seen.emplace(names[i], i);
    if (!fresh) invalid("parameter '", names[i], "' appears twice (parameters ", it->second, " and ", i, ")");
  }
  std::vector<NamedArray> out = ReadNamedArrays(r, names, "parameter", false);
  if (r.remaining() != 0) {
    invalid(r.remaining(), " bytes of unexpected data after the last parameter",
            count ? " ('" + names.back() + "')" : std::string());
  }
  return out;
}

}  // namespace aotrt
