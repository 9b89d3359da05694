// What a C-interface user trips over gets a clear error naming the file and what to do: archives
// aotrt does not run (style, version, BYOC), damaged or hostile archives, no C compiler.
#include <gtest/gtest.h>

#include <aotrt/c_api.h>
#include <tvm/runtime/c_runtime_api.h>

#include <fstream>
#include <sstream>
#include <tuple>

#include "common/expect_error.h"
#include "common/scoped_env.h"
#include "common/mlf_cases.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// The fixture unpacked into `d`/m with `from` replaced by `to` in metadata.json.
std::string EditedArchive(const ScratchDir& d, const Case& c, const std::string& from, const std::string& to) {
  std::string dir = d.path() + "/m";
  EXPECT_EQ(ScratchDir::Sh("mkdir -p " + dir + " && tar -xf " + c.library + " -C " + dir), 0);
  std::string md = ReadText(dir + "/metadata.json");
  size_t at = md.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) md.replace(at, from.size(), to);
  WriteText(dir + "/metadata.json", md);
  return dir;
}

// A ustar archive written by hand: (name, type flag, content, link target); sizes as given in
// `claimed` when >= 0 (content then need not follow).
struct TarMember {
  std::string name;
  char type = '0';
  std::string content;
  std::string link;
  int64_t claimed = -1;
};

std::string Tar(const std::vector<TarMember>& members) {
  std::string out;
  for (const TarMember& m : members) {
    char h[512] = {};
    std::snprintf(h, 100, "%s", m.name.c_str());
    std::snprintf(h + 100, 8, "%07o", 0644);
    std::snprintf(h + 108, 8, "%07o", 0);
    std::snprintf(h + 116, 8, "%07o", 0);
    std::snprintf(h + 124, 12, "%011llo", static_cast<unsigned long long>(m.claimed >= 0 ? m.claimed : m.content.size()));
    std::snprintf(h + 136, 12, "%011o", 0);
    h[156] = m.type;
    std::snprintf(h + 157, 100, "%s", m.link.c_str());
    std::memcpy(h + 257, "ustar", 6);
    std::memcpy(h + 263, "00", 2);
    std::memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char ch : h) sum += ch;
    std::snprintf(h + 148, 8, "%06o", sum);
    out.append(h, 512);
    out += m.content;
    out.append((512 - m.content.size() % 512) % 512, '\0');
  }
  return out + std::string(1024, '\0');
}

TEST(CInterfaceErrors, UnknownMetadataVersion) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = EditedArchive(d, c, "\"version\": 7", "\"version\": 6");
  EXPECT_AOTRT_ERROR(Model::Load(dir, CacheIn(d)), ErrorCode::kNotImplemented,
                     {dir, "metadata.json", "version 6", "reads version 7", "export the model again"});
}

TEST(CInterfaceErrors, OperatorStyle) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = EditedArchive(d, c, "\"full-model\"", "\"operator\"");
  EXPECT_AOTRT_ERROR(Model::Load(dir, CacheIn(d)), ErrorCode::kNotImplemented,
                     {dir, "metadata.json", "style \"operator\"", "full-model"});
}

TEST(CInterfaceErrors, ByocTargetAndCodegen) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = EditedArchive(d, c, "\"c -keys=cpu \"", "\"c -keys=cpu \", \"cmsis-nn\"");
  EXPECT_AOTRT_ERROR(Model::Load(dir, CacheIn(d)), ErrorCode::kNotImplemented, {dir, "cmsis-nn", "BYOC"});
  ScratchDir d2;
  std::string dir2 = EditedArchive(d2, c, "\"version\": 7", "\"version\": 7");
  ASSERT_EQ(ScratchDir::Sh("mkdir -p " + dir2 + "/codegen/ethos-u/src && touch " + dir2 + "/codegen/ethos-u/src/x.c"), 0);
  EXPECT_AOTRT_ERROR(Model::Load(dir2, CacheIn(d2)), ErrorCode::kNotImplemented, {dir2, "codegen/ethos-u", "BYOC"});
}

TEST(CInterfaceErrors, TwoModels) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = EditedArchive(d, c, "\"modules\": {", "\"modules\": {\"other\": {},");
  EXPECT_AOTRT_ERROR(Model::Load(dir, CacheIn(d)), ErrorCode::kNotImplemented, {dir, "2 models", "default", "other"});
}

TEST(CInterfaceErrors, SizeThatDisagreesWithTheRelayShape) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = EditedArchive(d, c, "\"size\": 4096\n                }\n              },\n              \"io_size_bytes\"",
                                  "\"size\": 4000\n                }\n              },\n              \"io_size_bytes\"");
  EXPECT_AOTRT_ERROR(Model::Load(dir, CacheIn(d)), ErrorCode::kFormatError,
                     {dir, "input 'x'", "[1, 4, 16, 16] float32", "4096 bytes", "4000 bytes in metadata.json"});
}

TEST(CInterfaceErrors, NotJson) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = EditedArchive(d, c, "{", "{{");
  EXPECT_AOTRT_ERROR(Model::Load(dir, CacheIn(d)), ErrorCode::kFormatError, {dir, "metadata.json", "not valid JSON"});
}

TEST(CInterfaceErrors, NoCCompiler) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  LoadOptions o = CacheIn(d);
  o.c_compiler = "/nonexistent/cc";
  EXPECT_AOTRT_ERROR(Model::Load(c.library, o), ErrorCode::kNotFound,
                     {c.library, "/nonexistent/cc", "no C compiler", "apt-get install gcc", "c_compiler"});
}

// The same option through the C ABI's load-with-options entry, and the environment's CC, which the
// caller's option overrides.
TEST(CInterfaceErrors, NoCCompilerThroughTheCAbiAndTheEnvironment) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  AOTRTLoadOptions o;
  AOTRTLoadOptionsInit(&o);
  o.compile_cache = 0;
  o.c_compiler = "/nonexistent/cc";
  void* factory = nullptr;
  EXPECT_EQ(AOTRTModLoadFromFileWithOptions(c.library.c_str(), nullptr, &o, &factory), -1);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kNotFound));
  EXPECT_NE(std::string(TVMGetLastError()).find("/nonexistent/cc"), std::string::npos) << TVMGetLastError();
  ScopedEnv cc("CC", "/nonexistent/from-env-cc");
  LoadOptions no_cache;
  no_cache.compile_cache = false;
  EXPECT_AOTRT_ERROR(Model::Load(c.library, no_cache), ErrorCode::kNotFound, {"/nonexistent/from-env-cc"});
  no_cache.c_compiler = "cc";  // the caller's option wins over CC
  EXPECT_EQ(Model::Load(c.library, no_cache).Info().inputs.size(), 1u);
}

TEST(CInterfaceErrors, CompilerFailureShowsItsOutput) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = d.path() + "/m";
  ASSERT_EQ(ScratchDir::Sh("mkdir -p " + dir + " && tar -xf " + c.library + " -C " + dir +
                           " && echo 'this is not C' >> " + dir + "/codegen/host/src/default_lib1.c"), 0);
  EXPECT_AOTRT_ERROR(Model::Load(dir, CacheIn(d)), ErrorCode::kIOError, {dir, "compiling", "default_lib1.c"});
}

TEST(CInterfaceErrors, TruncatedArchive) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string bytes = ReadText(c.library);
  for (size_t cut : {size_t{5000}, bytes.size() / 3, bytes.size() / 2}) {
    std::string path = d.path() + "/cut.tar";
    WriteText(path, bytes.substr(0, cut));
    SCOPED_TRACE(cut);
    EXPECT_AOTRT_ERROR(Model::Load(path, CacheIn(d)), ErrorCode::kFormatError, {path});
  }
}

TEST(CInterfaceErrors, PathTraversalLinksAndAbsurdSizesNameTheMember) {
  ScratchDir d;
  std::string md = R"({"version": 7, "modules": {}})";
  struct Bad {
    TarMember member;
    std::vector<std::string> fragments;
  };
  const std::vector<Bad> bad = {
      {{"../../evil.c", '0', "int x;"}, {"'../../evil.c'", "climbs out"}},
      {{"/etc/evil.c", '0', "int x;"}, {"'/etc/evil.c'", "absolute"}},
      {{"codegen/host/src/a.c", '2', "", "/etc/passwd"}, {"'codegen/host/src/a.c'", "symbolic link"}},
      {{"codegen/host/src/b.c", '1', "", "metadata.json"}, {"'codegen/host/src/b.c'", "hard link"}},
      {{"codegen/host/src/c.c", '0', "", "", int64_t{4} << 30}, {"'codegen/host/src/c.c'", "4294967296 bytes", "absurd"}},
  };
  for (const Bad& b : bad) {
    std::string path = d.path() + "/bad.tar";
    WriteText(path, Tar({{"metadata.json", '0', md}, b.member}));
    SCOPED_TRACE(b.member.name);
    EXPECT_AOTRT_ERROR(Model::Load(path, CacheIn(d)), ErrorCode::kFormatError, b.fragments);
    EXPECT_AOTRT_ERROR(Module::LoadFromFile(path), ErrorCode::kFormatError, b.fragments);
  }
  std::string dup = d.path() + "/dup.tar";
  WriteText(dup, Tar({{"metadata.json", '0', md}, {"./metadata.json", '0', md}}));
  EXPECT_AOTRT_ERROR(Model::Load(dup, CacheIn(d)), ErrorCode::kFormatError, {"'metadata.json'", "twice"});
}

TEST(CInterfaceErrors, SymlinkInAFolder) {
  Case c = MlfCase("mlf_conv_usmp");
  AOTRT_SKIP_WITHOUT_MLF(c);
  ScratchDir d;
  std::string dir = EditedArchive(d, c, "\"version\": 7", "\"version\": 7");
  ASSERT_EQ(ScratchDir::Sh("ln -s /etc/passwd " + dir + "/codegen/host/src/evil.c"), 0);
  EXPECT_AOTRT_ERROR(Model::Load(dir, CacheIn(d)), ErrorCode::kFormatError, {"codegen/host/src/evil.c", "symbolic link"});
}

}  // namespace
