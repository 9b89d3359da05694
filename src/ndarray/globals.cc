// Globals over the binary formats (TVM names): runtime.SaveParams / LoadParams and file variants.
// TVM passes a Map; across the C ABI aotrt takes name/NDArray argument pairs and returns an Array
// of alternating names and NDArrays.
#include <fstream>
#include <iterator>

#include "aotrt/ndarray.h"
#include "base/error_util.h"
#include "ffi/registry.h"

namespace aotrt {
namespace {

std::vector<NamedArray> PairsFrom(TVMArgs args, int first) {
  AOTRT_REQUIRE((args.size() - first) % 2 == 0, kInvalidArgument, "params must be given as name/NDArray pairs");
  std::vector<NamedArray> params;
  for (int i = first; i < args.size(); i += 2) {
    params.push_back({args[i].AsString(), NDArray::Borrow(*args[i + 1].AsDLTensor())});
  }
  return params;
}

void ReturnPairs(std::vector<NamedArray> params, TVMRetValue* rv) {
  std::vector<ObjectPtr<Object>> items;
  for (NamedArray& p : params) {
    items.push_back(MakeObject<StringObj>(p.name));
    items.push_back(p.array.object());
  }
  rv->SetObject(MakeObject<ArrayObj>(std::move(items)), kTVMObjectHandle);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  AOTRT_REQUIRE(in.good(), kNotFound, "cannot open params file ", path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

void RegisterNDArrayGlobals(Registry& r) {
  r.Register("runtime.SaveParams", PackedFunc([](TVMArgs args, TVMRetValue* rv) {
    rv->SetBytes(SaveParams(PairsFrom(args, 0)));
  }), false);
  r.Register("runtime.LoadParams", PackedFunc([](TVMArgs args, TVMRetValue* rv) {
    AOTRT_REQUIRE(args.size() == 1, kInvalidArgument, "runtime.LoadParams takes the bytes");
    std::string bytes = args[0].AsString();
    ReturnPairs(LoadParams(bytes.data(), bytes.size()), rv);
  }), false);
  r.Register("runtime.SaveParamsToFile", PackedFunc([](TVMArgs args, TVMRetValue*) {
    AOTRT_REQUIRE(args.size() >= 1, kInvalidArgument, "runtime.SaveParamsToFile needs a path");
    std::string path = args[0].AsString();
    std::string bytes = SaveParams(PairsFrom(args, 1));
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    AOTRT_REQUIRE(out.good(), kIOError, "cannot write params file ", path);
  }), false);
  r.Register("runtime.LoadParamsFromFile", PackedFunc([](TVMArgs args, TVMRetValue* rv) {
    AOTRT_REQUIRE(args.size() == 1, kInvalidArgument, "runtime.LoadParamsFromFile takes a path");
    std::string bytes = ReadFile(args[0].AsString());
    ReturnPairs(LoadParams(bytes.data(), bytes.size()), rv);
  }), false);
}

}  // namespace aotrt
