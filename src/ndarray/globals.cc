// Globals of the NDArray layer with TVM's names and conventions: the params formats over a
// Map<String, NDArray> (ABI.md 11.4), allocation with a memory scope, and views.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "aotrt/container.h"
#include "aotrt/ndarray.h"
#include "base/error_util.h"
#include "ffi/registry.h"
#include "ndarray/serialize.h"

namespace aotrt {

std::vector<NamedArray> ParamsFromMap(TVMArgValue arg) {
  const auto* map = static_cast<const MapObj*>(arg.AsObjectOf(kTypeMap, "Map<String, NDArray>"));
  std::vector<NamedArray> params;
  for (const auto& kv : map->items()) {
    AOTRT_REQUIRE(kv.first && kv.first->type_index() == kTypeString, kTypeMismatch, "params: keys must be strings");
    AOTRT_REQUIRE(kv.second && kv.second->type_index() == kTypeNDArray, kTypeMismatch, "params: value of '",
                  static_cast<StringObj*>(kv.first.get())->value, "' is not an NDArray");
    params.push_back({static_cast<StringObj*>(kv.first.get())->value,
                      NDArray(ObjectPtr<NDArrayObj>(static_cast<NDArrayObj*>(kv.second.get())))});
  }
  return params;
}

ObjectPtr<Object> ParamsToMap(std::vector<NamedArray> params) {
  std::vector<MapObj::Item> items;
  for (NamedArray& p : params) items.emplace_back(MakeObject<StringObj>(p.name), p.array.object());
  return MakeObject<MapObj>(std::move(items));
}

// A directory opens as a stream and then fails to read with libstdc++'s "basic_filebuf::underflow"
// and no path: check the kind of file first, and name the path always.
std::string ReadFile(const std::string& path, const char* what) {
  struct stat st;
  AOTRT_REQUIRE(::stat(path.c_str(), &st) == 0, kNotFound, what, " '", path, "': ", std::strerror(errno));
  AOTRT_REQUIRE(!S_ISDIR(st.st_mode), kIOError, what, " '", path, "' is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  AOTRT_REQUIRE(in.good(), kIOError, what, " '", path, "': cannot open: ", std::strerror(errno));
  std::string bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure& e) {
    AOTRT_THROW(kIOError, what, " '", path, "': read error: ", e.what());
  }
  AOTRT_REQUIRE(!in.bad(), kIOError, what, " '", path, "': read error");
  return bytes;
}

void WriteFile(const std::string& path, const std::string& bytes, const char* what) {
  std::ofstream out(path, std::ios::binary);
  AOTRT_REQUIRE(out.good(), kIOError, what, ": cannot open '", path, "' for writing: ", std::strerror(errno));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  AOTRT_REQUIRE(out.good(), kIOError, what, ": cannot write '", path, "'");
}

namespace {

// runtime.SaveParams(map) -> bytes, runtime.SaveParamsToFile(map, path).
template <bool kToFile>
void SaveParamsGlobal(TVMArgs args, TVMRetValue* rv) {
  const char* fn = kToFile ? "runtime.SaveParamsToFile" : "runtime.SaveParams";
  RequireArgCount(fn, args, kToFile ? 2 : 1);
  std::string bytes = SaveParams(ParamsFromMap(args[0]));
  kToFile ? WriteFile(args[1].AsString(), bytes, fn) : rv->SetBytes(std::move(bytes));
}

// runtime.LoadParams(bytes) -> map, runtime.LoadParamsFromFile(path) -> map.
template <bool kFromFile>
void LoadParamsGlobal(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount(kFromFile ? "runtime.LoadParamsFromFile" : "runtime.LoadParams", args, 1);
  std::string bytes = kFromFile ? ReadFile(args[0].AsString(), "runtime.LoadParamsFromFile: params file")
                                : args[0].AsString();
  rv->SetObject(ParamsToMap(LoadParams(bytes.data(), bytes.size())));
}

// TVM's VerifyDataType: lanes >= 1; bits a power of two multiple of 8, or 1/4-bit integers.
DLDataType AllocDataType(TVMArgValue arg) {
  DLDataType t = arg.AsDataType();
  bool int_like = t.code == kDLInt || t.code == kDLUInt;
  bool ok = t.lanes >= 1 && ((t.bits % 8 == 0 && (t.bits & (t.bits - 1)) == 0) ||
                             (int_like && (t.bits == 1 || t.bits == 4)));
  AOTRT_REQUIRE(ok, kInvalidArgument, "invalid data type ", DataTypeToString(t), " for an NDArray");
  return t;
}

// (ShapeTuple shape, dtype, Device, scope: null, "", "global", or a texture scope on OpenCL)
void AllocWithScope(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.TVMArrayAllocWithScope", args, 4);
  const auto* shape = static_cast<const ShapeTupleObj*>(args[0].AsObjectOf(kTypeShapeTuple, "ShapeTuple"));
  DLDataType dtype = AllocDataType(args[1]);
  DLDevice dev = args[2].AsDevice();
  std::string scope = args[3].type_code() == kTVMNullptr ? "" : args[3].AsString();
  rv->SetObject(NDArray::Empty(shape->dims, dtype, dev, scope).object());
}

// (NDArray, ShapeTuple): same dtype and bytes, a view holding the source alive.
void CreateView(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.TVMArrayCreateView", args, 2);
  NDArrayObj* src = args[0].AsNDArrayObjOrNull();
  AOTRT_REQUIRE(src, kTypeMismatch, "runtime.TVMArrayCreateView: argument 0 must be an NDArray, got ",
                TypeCodeName(args[0].type_code()));
  const auto* shape = static_cast<const ShapeTupleObj*>(args[1].AsObjectOf(kTypeShapeTuple, "ShapeTuple"));
  NDArray a{ObjectPtr<NDArrayObj>(src)};
  rv->SetObject(a.CreateView(shape->dims, a.dtype()).object());
}

constexpr GlobalDef kDefs[] = {
    {"runtime.SaveParams", SaveParamsGlobal<false>},
    // TVM's compiler registers it; TVM's debug executor saves each node's output with it.
    {"tvm.relay._save_param_dict", SaveParamsGlobal<false>},
    {"runtime.SaveParamsToFile", SaveParamsGlobal<true>},
    {"runtime.LoadParams", LoadParamsGlobal<false>},
    {"runtime.LoadParamsFromFile", LoadParamsGlobal<true>},
    {"runtime.TVMArrayAllocWithScope", AllocWithScope},
    {"runtime.TVMArrayCreateView", CreateView},
};

}  // namespace

extern const GlobalTable kNDArrayGlobals{kDefs};

}  // namespace aotrt
