#include "aot/c_interface/mlf_metadata.h"

#include "aotrt/dtype.h"
#include "base/json_fields.h"

namespace aotrt {
namespace {

constexpr int kVersion = 7;
const char* const kRebuild =
    "build with relay.build(..., executor=Executor(\"aot\", {\"interface-api\": \"c\", \"unpacked-api\": True}), "
    "runtime=Runtime(\"crt\")) and tvm.micro.export_model_library_format";

uint64_t Size(const Json& v, const std::string& where, const std::string& what) {
  return JsonCount(v, uint64_t{1} << 40, where + " (bytes)", what);
}

std::vector<MlfTensor> Tensors(const Json& obj, const std::string& where, const std::string& what) {
  AOTRT_REQUIRE(obj.is_object(), kFormatError, what, ": ", where, " is not an object of tensors");
  std::vector<MlfTensor> out;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::string at = where + "." + it.key();
    AOTRT_REQUIRE(!it.key().empty(), kFormatError, what, ": ", where, " has a tensor with an empty name");
    std::string dtype = JsonString(JsonField(it.value(), "dtype", at, what), at + ".dtype", what);
    DLDataType t;
    try {
      t = DataTypeFromString(dtype);
    } catch (const Error& e) {
      AOTRT_THROW(kFormatError, what, ": ", at, ".dtype: ", e.what());
    }
    out.push_back({it.key(), t, Size(JsonField(it.value(), "size", at, what), at + ".size", what)});
  }
  return out;
}

void CheckSupported(const Json& m, const std::string& at, const std::string& what) {
  std::string style = JsonString(JsonField(m, "style", at, what), at + ".style", what);
  AOTRT_REQUIRE(style == "full-model", kNotImplemented, what, ": style \"", style,
                "\": aotrt runs whole models (style \"full-model\", from relay.build), not single operators "
                "(tvm.build); ", kRebuild);
  const Json& executors = JsonField(m, "executors", at, what);
  AOTRT_REQUIRE(executors.is_array() && executors.size() == 1 && executors[0] == "aot", kNotImplemented, what, ": ",
                at, ".executors is ", executors.dump(), ": aotrt runs the AOT executor only; ", kRebuild);
  const Json& targets = JsonField(m, "target", at, what);
  AOTRT_REQUIRE(targets.is_array(), kFormatError, what, ": ", at, ".target is not an array");
  for (const Json& t : targets) {
    std::string s = JsonString(t, at + ".target[]", what);
    std::string kind = s.substr(0, s.find(' '));
    AOTRT_REQUIRE(kind == "c" || kind == "llvm", kNotImplemented, what, ": target \"", s,
                  "\" is an external code generator (BYOC) or a device: its code needs that vendor's library or "
                  "hardware, which aotrt does not provide; run it on the device, or build for the host target \"c\" "
                  "without that partitioning");
  }
  auto deps = m.find("external_dependencies");
  if (deps != m.end() && deps->is_array()) {
    for (const Json& d : *deps) {
      std::string name = d.is_object() && d.contains("short_name") ? JsonString(d["short_name"], at + ".external_dependencies[].short_name", what) : d.dump();
      AOTRT_REQUIRE(name == "tvm_standalone_crt", kNotImplemented, what, ": external dependency \"", name,
                    "\": aotrt provides TVM's C runtime only; an archive needing another library (BYOC, external "
                    "modules) runs on its device");
    }
  }
}

}  // namespace

MlfMetadata ParseMlfMetadata(const std::string& text, const std::string& what) {
  Json j = ParseJsonText(text, what);
  const Json& version = JsonField(j, "version", "the top level", what);
  AOTRT_REQUIRE(version.is_number_integer(), kFormatError, what, ": \"version\" is not an integer");
  AOTRT_REQUIRE(version.get<int64_t>() == kVersion, kNotImplemented, what, ": version ", version.dump(),
                " is not one aotrt reads (it reads version ", kVersion,
                ", as TVM v0.14 writes it): export the model again with TVM v0.14");
  const Json& modules = JsonField(j, "modules", "the top level", what);
  AOTRT_REQUIRE(modules.is_object() && !modules.empty(), kFormatError, what, ": \"modules\" is not a non-empty object");
  if (modules.size() != 1) {
    std::string names;
    for (auto it = modules.begin(); it != modules.end(); ++it) names += (names.empty() ? "" : ", ") + it.key();
    AOTRT_THROW(kNotImplemented, what, ": the archive holds ", modules.size(), " models (", names,
                "); aotrt loads archives of one model: export each into its own archive");
  }
  MlfMetadata md;
  md.model_name = modules.begin().key();
  std::string at = "modules." + md.model_name;
  const Json& m = modules.begin().value();
  CheckSupported(m, at, what);
  const Json& main = JsonField(JsonField(JsonField(m, "memory", at, what), "functions", at + ".memory", what), "main",
                           at + ".memory.functions", what);
  AOTRT_REQUIRE(main.is_array() && main.size() == 1, kNotImplemented, what, ": ", at,
                ".memory.functions.main lists ", main.is_array() ? main.size() : 0,
                " devices: aotrt runs models whose main function lives on the CPU alone");
  std::string fn = at + ".memory.functions.main[0]";
  const Json& dev = JsonField(main[0], "device", fn, what);
  AOTRT_REQUIRE(dev == kDLCPU, kNotImplemented, what, ": ", fn, ".device is ", dev.dump(),
                ": aotrt runs models on the CPU (device 1) only");
  md.inputs = Tensors(JsonField(main[0], "inputs", fn, what), fn + ".inputs", what);
  md.outputs = Tensors(JsonField(main[0], "outputs", fn, what), fn + ".outputs", what);
  AOTRT_REQUIRE(!md.outputs.empty(), kFormatError, what, ": ", fn, ".outputs is empty");
  md.workspace_bytes = Size(JsonField(main[0], "workspace_size_bytes", fn, what), fn + ".workspace_size_bytes", what);
  md.constant_bytes = Size(JsonField(main[0], "constants_size_bytes", fn, what), fn + ".constants_size_bytes", what);
  return md;
}

}  // namespace aotrt
