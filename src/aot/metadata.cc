#include "aot/metadata.h"

#include <algorithm>
#include <cstring>

#include "base/error_util.h"
#include "ndarray/serialize.h"

namespace aotrt {
namespace {

constexpr int64_t kMaxTensors = 1 << 16;
constexpr int64_t kMaxDims = 32;
constexpr size_t kMaxName = 4096;
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 40;
constexpr uint64_t kMaxConstantPool = uint64_t{1} << 31;  // TVM's limit on the constant pool (ABI.md 7)

// A metadata field as error messages name it, e.g. "inputs[2] ('x').shape": formatted only when a
// check fails, so that a valid model's load builds none of these strings.
struct Field {
  explicit Field(const char* base_name, int64_t i = -1) : base(base_name), index(i) {}

  const char* base;                   // "inputs", "constant_pools", "mod_name", ...
  int64_t index = -1;                 // "[index]" when >= 0
  std::string_view name;              // " ('name')" when set
  const char* member = "";            // ".shape", ".name_hint", ...

  Field Member(const char* m) const {
    Field f = *this;
    f.member = m;
    return f;
  }
  std::string str() const {
    std::string s = base;
    if (index >= 0) StrAppend(s, "[", index, "]");
    if (!name.empty()) StrAppend(s, " ('", name, "')");
    return s + member;
  }
};

// The non-empty name at `s`, in the library.
std::string_view ReadName(const AddressBounds& bounds, const char* s, const Field& field) {
  ptrdiff_t n = bounds.StringLength(s, kMaxName);
  if (n < 0) bounds.ReadString(s, kMaxName, field.str());  // throws, naming what is wrong
  AOTRT_REQUIRE(n > 0, kFormatError, field.str(), " is empty");
  return std::string_view(s, static_cast<size_t>(n));
}

// A count and the array it sizes, which must lie inside the library, aligned for its items.
template <typename T>
void CheckArray(const AddressBounds& bounds, int64_t n, const T* ptr, const Field& field) {
  AOTRT_REQUIRE(n >= 0 && n <= kMaxTensors, kFormatError, field.str(), " count ", n, " not in [0, ", kMaxTensors, "]");
  AOTRT_REQUIRE(n == 0 || ptr != nullptr, kFormatError, field.str(), " has ", n, " entries but a null pointer");
  AOTRT_REQUIRE(n == 0 || reinterpret_cast<uintptr_t>(ptr) % alignof(T) == 0, kFormatError, field.str(), " pointer ",
                static_cast<const void*>(ptr), " is not aligned to ", alignof(T), " bytes");
  if (n > 0 && !bounds.ContainsReadable(ptr, static_cast<size_t>(n) * sizeof(T))) {
    bounds.RequireReadable(ptr, static_cast<size_t>(n) * sizeof(T), StrCat(field.str(), " (", n, " entries)"));
  }
}

// Names index the tensors (inputs by their sanitized form, as set_input accepts them): two equal
// keys would make one tensor unreachable.
NameIndex IndexNames(const std::vector<TensorSpec>& tensors, const char* field, bool sanitize) {
  NameIndex index;
  index.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const size_t* first = index.Insert(sanitize ? SanitizeName(tensors[i].name) : tensors[i].name, i);
    AOTRT_REQUIRE(first == nullptr, kFormatError, field, "[", i, "] ('", tensors[i].name, "') has the same name",
                  sanitize ? " (sanitized)" : "", " as ", field, "[", *first, "] ('", tensors[*first].name, "')");
  }
  return index;
}

std::vector<TensorSpec> ReadTensors(const AddressBounds& bounds, const TVMTensorInfo* infos, int64_t n,
                                    const char* field) {
  CheckArray(bounds, n, infos, Field{field});
  std::vector<TensorSpec> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const TVMTensorInfo& info = infos[i];
    Field where{field, i};
    TensorSpec t;
    t.name = ReadName(bounds, info.name, where.Member(".name"));
    where.name = t.name;
    AOTRT_REQUIRE(info.num_shape >= 0 && info.num_shape <= kMaxDims, kFormatError, where.str(), ": ndim ",
                  info.num_shape, " not in [0, ", kMaxDims, "]");
    CheckArray(bounds, info.num_shape, info.shape, where.Member(".shape"));
    t.shape.assign(info.shape, info.shape + info.num_shape);
    const DLDataType& d = t.dtype = info.dtype;
    bool known = d.code == kDLInt || d.code == kDLUInt || d.code == kDLFloat || d.code == kDLBfloat;
    AOTRT_REQUIRE(known && d.bits > 0 && d.bits <= 128 && d.lanes >= 1, kFormatError, where.str(),
                  ": invalid dtype (code ", int(d.code), ", bits ", int(d.bits), ", lanes ", d.lanes, ")");
    DLTensor probe{nullptr, DLDevice{}, static_cast<int32_t>(t.shape.size()), t.dtype, t.shape.data(), nullptr, 0};
    t.bytes = AsFormatError([&] { return TensorBytes(probe); }, where.str(), ": ");
    AOTRT_REQUIRE(t.bytes <= kMaxTensorBytes, kFormatError, where.str(), ": ", t.bytes, " bytes is implausibly large");
    out.push_back(std::move(t));
  }
  return out;
}

// Pools are passed sorted by pool name; TVM names their variables <pool>_<k>_var with k counting
// main's pools in that order, so k is the position. Returns -1 when the name has another form.
int PoolPosition(const std::string& var) {
  size_t end = var.size() >= 4 && var.compare(var.size() - 4, 4, "_var") == 0 ? var.size() - 4 : 0;
  size_t start = end;
  while (start > 0 && var[start - 1] >= '0' && var[start - 1] <= '9') --start;  // ASCII, whatever the locale
  if (start == end || start == 0 || var[start - 1] != '_' || end - start > 6) return -1;
  int k = 0;
  for (size_t i = start; i < end; ++i) k = k * 10 + (var[i] - '0');
  return k;
}

std::vector<PoolArg> PoolArguments(const ModelMetadata& md) {
  size_t total = md.workspace_pools.size() + (md.constants.empty() ? 0 : 1);
  std::vector<int> slot(total, -2);  // -2 free, -1 constant pool, else workspace index
  bool named = true;
  for (size_t i = 0; i < md.workspace_pools.size() && named; ++i) {
    int k = PoolPosition(md.workspace_pools[i].name);
    named = k >= 0 && static_cast<size_t>(k) < total && slot[k] == -2;
    if (named) slot[k] = static_cast<int>(i);
  }
  std::vector<PoolArg> args;
  args.reserve(total);
  if (named) {
    for (int s : slot) args.push_back(s < 0 ? PoolArg{true, 0} : PoolArg{false, static_cast<size_t>(s)});
    return args;
  }
  // Names of another form: TVM's default pool names sort the constant pool first.
  if (!md.constants.empty()) args.push_back(PoolArg{true, 0});
  for (size_t i = 0; i < md.workspace_pools.size(); ++i) args.push_back(PoolArg{false, i});
  return args;
}

}  // namespace

std::string ModelMetadata::DisplayName() const {  // undoes mangle_module_name (ABI.md 4)
  std::string user = mod_name.rfind("tvmgen_", 0) == 0 ? mod_name.substr(7) : mod_name == "tvmgen" ? "" : mod_name;
  return "model '" + user + "'";
}

ModelMetadata ReadMetadata(const TVMMetadata* raw, const AddressBounds& bounds, const std::string& what) {
  AOTRT_REQUIRE(raw != nullptr, kFormatError, what, ": get_c_metadata returned nullptr");
  ModelMetadata md;
  AsFormatError([&] {
    CheckArray(bounds, 1, raw, Field{"the TVMMetadata struct"});
    AOTRT_REQUIRE(raw->version == contract::kMetadataVersion, kFormatError, "version ", raw->version,
                  " is not supported (expected ", contract::kMetadataVersion, ")");
    md.mod_name = std::string(ReadName(bounds, raw->mod_name, Field{"mod_name"}));
    md.inputs = ReadTensors(bounds, raw->inputs, raw->num_inputs, "inputs");
    md.outputs = ReadTensors(bounds, raw->outputs, raw->num_outputs, "outputs");
    // An entry function with nothing to write cannot be what TVM exported; running it would hand
    // the model an argument list without the outputs it expects.
    AOTRT_REQUIRE(!md.outputs.empty(), kFormatError, "num_outputs is 0: a model has at least one output");
    md.workspace_pools = ReadTensors(bounds, raw->workspace_pools, raw->num_workspace_pools, "workspace_pools");
    md.input_index = IndexNames(md.inputs, "inputs", true);
    IndexNames(md.outputs, "outputs", false);
    IndexNames(md.workspace_pools, "workspace_pools", false);
    for (const TensorSpec& p : md.workspace_pools) {
      AOTRT_REQUIRE(p.shape.size() == 1 && p.dtype.code == kDLUInt && p.dtype.bits == 8, kFormatError,
                    "workspace pool '", p.name, "' must be a 1-D uint8 buffer");
      AOTRT_REQUIRE(p.bytes > 0, kFormatError, "workspace pool '", p.name, "' has 0 bytes");
    }
    CheckArray(bounds, raw->num_constant_pools, raw->constant_pools, Field{"constant_pools"});
    md.constants.reserve(static_cast<size_t>(raw->num_constant_pools));
    for (int64_t i = 0; i < raw->num_constant_pools; ++i) {
      const TVMConstantInfo& c = raw->constant_pools[i];
      Field where{"constant_pools", i};
      ConstantSpec spec{ReadName(bounds, c.name_hint, where.Member(".name_hint")), c.byte_offset, c.data_len,
                        c.data_bytes};
      where.name = spec.name;
      AOTRT_REQUIRE(c.byte_offset >= 0 && static_cast<uint64_t>(c.byte_offset) < kMaxConstantPool, kFormatError,
                    where.str(), ": byte_offset ", c.byte_offset, " not in [0, 2^31)");
      AOTRT_REQUIRE(c.data_len > 0 && static_cast<uint64_t>(c.data_len) < kMaxTensorBytes && c.data_bytes,
                    kFormatError, where.str(), ": no data (data_len ", c.data_len, ")");
      if (!bounds.ContainsReadable(c.data_bytes, static_cast<size_t>(c.data_len))) {
        bounds.RequireReadable(c.data_bytes, static_cast<size_t>(c.data_len), where.Member(".data_bytes").str());
      }
      md.constants.push_back(spec);
    }
  }, what, ": invalid metadata: ");
  md.pool_args = PoolArguments(md);
  return md;
}

ConstantPoolPlan PlanConstantPool(const ModelMetadata& md, const std::string& what) {
  ConstantPoolPlan plan;
  plan.pieces.reserve(md.constants.size());
  uint64_t size = 0;
  for (const ConstantSpec& c : md.constants) {
    SerializedNDArray a = AsFormatError([&] { return ViewSerializedNDArray(c.data, static_cast<size_t>(c.data_len)); },
                                        what, ": constant '", c.name, "': ");
    size = std::max<uint64_t>(size, static_cast<uint64_t>(c.byte_offset) + a.header.bytes);
    plan.pieces.push_back({static_cast<size_t>(c.byte_offset), a.data, a.header.bytes});
  }
  AOTRT_REQUIRE(size < kMaxConstantPool, kFormatError, what, ": the constants need a pool of ", size,
                " bytes, more than TVM's limit of 2^31");
  plan.bytes = static_cast<size_t>(size);
  return plan;
}

void ConstantPoolPlan::Fill(uint8_t* pool) const {
  for (const Piece& p : pieces) {
    if (p.bytes) std::memcpy(pool + p.offset, p.data, p.bytes);
  }
}

}  // namespace aotrt
