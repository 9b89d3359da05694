#include "aot/c_interface/mlf_sources.h"

#include <cctype>
#include <cstdlib>

#include "base/error_util.h"
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
    out.push_back({it.key(), JsonDataType(JsonField(it.value(), "dtype", at, what), at + ".dtype", what),
                   Size(JsonField(it.value(), "size", at, what), at + ".size", what)});
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

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// The decimal number right after `key` in `text`, or -1.
int64_t NumberAfter(const std::string& text, const std::string& key) {
  size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  const char* p = text.c_str() + at + key.size();
  char* end = nullptr;
  long long v = std::strtoll(p, &end, 10);
  return end == p || v < 0 ? -1 : v;
}

MlfEntryArg StaticPool(const std::string& name, const std::string& file_text, const std::string& where) {
  int64_t bytes = NumberAfter(file_text, "static uint8_t " + name + "[");
  if (bytes > 0) return {MlfEntryArg::kStaticWorkspace, name, static_cast<uint64_t>(bytes)};
  AOTRT_REQUIRE(file_text.find("static struct " + name + " {") != std::string::npos, kFormatError, where,
                ": the run function passes &", name, ", which is neither a `static uint8_t ", name,
                "[N]` workspace nor a `static struct ", name, "` of constants there");
  return {MlfEntryArg::kStaticConstants, name, 0};
}

MlfEntryArg ParseArg(const std::string& arg, const std::string& file_text, const std::string& header,
                     const std::string& symbol, const std::string& where) {
  auto member = [&](const char* prefix) -> std::string {
    std::string p = prefix;
    return arg.compare(0, p.size(), p) == 0 && IsIdentifier(arg.substr(p.size())) ? arg.substr(p.size()) : "";
  };
  if (std::string n = member("inputs->"); !n.empty()) return {MlfEntryArg::kInput, n, 0};
  if (std::string n = member("outputs->"); !n.empty()) return {MlfEntryArg::kOutput, n, 0};
  if (std::string n = member("workspace_pools->"); !n.empty()) {
    std::string define = symbol + "_" + n;
    for (char& c : define) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    define += "_WORKSPACE_POOL_SIZE ";
    int64_t bytes = NumberAfter(header, "#define " + define);
    AOTRT_REQUIRE(bytes > 0, kFormatError, where, ": workspace pool '", n, "' has no size: the header lacks #define ",
                  define, "<bytes>");
    return {MlfEntryArg::kCallerPool, n, static_cast<uint64_t>(bytes)};
  }
  AOTRT_REQUIRE(member("devices->").empty(), kNotImplemented, where, ": the model calls an external device ('",
                member("devices->"), "', BYOC): aotrt runs host code only; run the archive on its device");
  if (arg.size() > 1 && arg[0] == '&' && IsIdentifier(arg.substr(1))) return StaticPool(arg.substr(1), file_text, where);
  AOTRT_THROW(kFormatError, where, ": cannot read the argument '", arg, "' the run function passes to ", symbol,
              "___tvm_main__");
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
  for (const char* f : {"workspace_size_bytes", "constants_size_bytes"}) Size(JsonField(main[0], f, fn, what), fn + "." + f, what);
  return md;
}

MlfEntry ParseMlfEntry(const std::map<std::string, std::string>& sources, const std::string& header,
                       const std::string& symbol, const std::string& what) {
  const std::string call = "return " + symbol + "___tvm_main__(";
  for (const auto& [file, text] : sources) {
    size_t at = text.find(call);
    if (at == std::string::npos) continue;
    std::string where = what + ": " + file;
    size_t open = at + call.size(), close = text.find(')', open);
    AOTRT_REQUIRE(close != std::string::npos, kFormatError, where, ": the call of ", symbol, "___tvm_main__ is not closed");
    MlfEntry entry;
    entry.run_file = file;
    std::string list = text.substr(open, close - open);
    for (size_t start = 0; start <= list.size();) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      std::string arg = Trim(list.substr(start, comma - start));
      if (!arg.empty()) entry.args.push_back(ParseArg(arg, text, header, symbol, where));
      start = comma + 1;
    }
    bool has_io = false;
    for (const MlfEntryArg& a : entry.args) has_io = has_io || a.kind == MlfEntryArg::kInput || a.kind == MlfEntryArg::kOutput;
    AOTRT_REQUIRE(has_io, kNotImplemented, where, ": the model's inputs and outputs live inside its workspace pool "
                  "(built with tir.usmp.use_workspace_io): aotrt binds inputs and outputs itself; build without that option");
    return entry;
  }
  AOTRT_THROW(kFormatError, what, ": no codegen/host/src file defines ", symbol, "_run calling ", symbol,
              "___tvm_main__: not an archive of TVM's C interface (Executor(\"aot\", {\"interface-api\": \"c\", "
              "\"unpacked-api\": True}))");
}

std::vector<std::string> StructMembers(const std::string& header, const std::string& name) {
  std::vector<std::string> out;
  size_t at = header.find("struct " + name + " {");
  if (at == std::string::npos) return out;
  size_t end = header.find("};", at);
  for (size_t p = header.find("void* ", at); p < end; p = header.find("void* ", p)) {
    p += 6;
    size_t semi = header.find(';', p);
    if (semi > end) break;
    out.push_back(Trim(header.substr(p, semi - p)));
  }
  return out;
}

namespace {

// A cursor over Relay text that skips blanks and /* comments */.
struct RelayCursor {
  const std::string& s;
  size_t i = 0;
  void Skip() {
    for (;;) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      if (s.compare(i, 2, "/*") != 0) return;
      size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 2;
    }
  }
  bool Eat(const char* token) {
    Skip();
    std::string t = token;
    if (s.compare(i, t.size(), t) != 0) return false;
    i += t.size();
    return true;
  }
  std::string Word() {
    Skip();
    size_t b = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '.')) ++i;
    return s.substr(b, i - b);
  }
};

// Tensor[(d0, d1, ...), dtype]; false (cursor anywhere) when it is not one.
bool ParseTensorType(RelayCursor& c, RelayTensorType* t) {
  if (!c.Eat("Tensor") || !c.Eat("[") || !c.Eat("(")) return false;
  while (!c.Eat(")")) {
    std::string d = c.Word();
    if (d.empty() || !std::isdigit(static_cast<unsigned char>(d[0]))) return false;
    t->shape.push_back(std::strtoll(d.c_str(), nullptr, 10));
    c.Eat(",");
  }
  if (!c.Eat(",")) return false;
  t->dtype = c.Word();
  return !t->dtype.empty() && c.Eat("]");
}

// A tensor type or a (nested) tuple of them, flattened into `out`.
bool ParseType(RelayCursor& c, std::vector<RelayTensorType>* out, int depth) {
  if (depth > 16) return false;
  if (c.Eat("(")) {
    while (!c.Eat(")")) {
      if (!ParseType(c, out, depth + 1)) return false;
      c.Eat(",");
    }
    return true;
  }
  RelayTensorType t;
  if (!ParseTensorType(c, &t)) return false;
  out->push_back(std::move(t));
  return true;
}

// Skips to the ',' or ')' that ends the current parameter (brackets balanced).
void SkipParam(RelayCursor& c) {
  int depth = 0;
  for (; c.i < c.s.size(); ++c.i) {
    char ch = c.s[c.i];
    if (ch == '(' || ch == '[') ++depth;
    if ((ch == ')' || ch == ']') && depth-- == 0) return;
    if (ch == ',' && depth == 0) return;
  }
}

}  // namespace

RelaySignature ParseRelayMain(const std::string& text) {
  RelaySignature sig;
  size_t at = text.find("def @main(");
  if (at == std::string::npos) return sig;
  RelayCursor c{text, at + 10};
  while (!c.Eat(")")) {
    if (c.i >= text.size() || !c.Eat("%")) return sig;
    std::string name = c.Word();
    if (c.Eat(":")) {
      size_t type_start = c.i;
      RelayTensorType t;
      if (ParseTensorType(c, &t) && !name.empty()) {
        sig.params[name] = std::move(t);
      } else {
        c.i = type_start;
        SkipParam(c);
      }
    }
    c.Eat(",");
  }
  if (c.Eat("->")) {
    std::vector<RelayTensorType> outs;
    if (ParseType(c, &outs, 0)) sig.outputs = std::move(outs);
  }
  return sig;
}

}  // namespace aotrt
