// Loading bad files: every failure is an error naming the file and the problem, never a crash.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include <tvm/runtime/c_runtime_api.h>

#include "aotrt/c_api.h"
#include "common/expect_error.h"
#include "common/run_case.h"
#include "aotrt/model.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

std::string TempFile(const std::string& name, const std::string& bytes) {
  std::string path = ::testing::TempDir() + "/aotrt_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string DataDir() { return AOTRT_TEST_DATA_DIR; }

}  // namespace

TEST(LoadErrors, MissingFile) {
  EXPECT_AOTRT_ERROR(Module::LoadFromFile("/nonexistent/model.so"), ErrorCode::kNotFound,
              {"/nonexistent/model.so", "no such file"});
  void* h = nullptr;
  EXPECT_EQ(TVMModLoadFromFile("/nonexistent/model.so", "so", &h), -1);
  EXPECT_NE(std::string(TVMGetLastError()).find("/nonexistent/model.so"), std::string::npos);
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kNotFound));
}

TEST(LoadErrors, UnknownFormat) {
  EXPECT_AOTRT_ERROR(Module::LoadFromFile("model.onnx"), ErrorCode::kNotFound,
              {"Loader for `.onnx` files is not registered"});
}

TEST(LoadErrors, NotASharedLibrary) {
  std::string path = TempFile("text.so", "this is not a shared library\n");
  EXPECT_AOTRT_ERROR(Module::LoadFromFile(path), ErrorCode::kFormatError, {path, "not an ELF file"});
  std::string empty = TempFile("empty.so", "");
  EXPECT_AOTRT_ERROR(Module::LoadFromFile(empty), ErrorCode::kFormatError, {empty});
}

TEST(LoadErrors, TruncatedModelFiles) {
  std::string good = ReadFile(ModelPath("add_c"));
  ASSERT_GT(good.size(), 1000u);
  Elf64_Ehdr eh;
  std::memcpy(&eh, good.data(), sizeof eh);
  size_t segments_end = 0;  // the end of the last PT_LOAD segment's bytes in the file
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, good.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD) segments_end = std::max<size_t>(segments_end, ph.p_offset + ph.p_filesz);
  }
  ASSERT_LT(segments_end, good.size());
  for (size_t cut : {size_t{16}, size_t{64}, good.size() / 4, good.size() / 2, segments_end - 100}) {
    std::string path = TempFile("cut.so", good.substr(0, cut));
    EXPECT_AOTRT_ERROR(Module::LoadFromFile(path), ErrorCode::kFormatError, {path}) << "cut at " << cut;
  }
  // What follows the segments (section headers, symbols for debuggers) is not loaded: a file cut
  // there still runs, as under the dynamic linker alone.
  std::string path = TempFile("cut.so", good.substr(0, segments_end));
  EXPECT_EQ(Model::Load(path).Inputs().size(), 2u);
}

TEST(LoadErrors, LibraryWithoutBlobIsNotAModel) {
  std::string path = DataDir() + "/not_a_model.so";
  Module m = Module::LoadFromFile(path);
  EXPECT_EQ(m.type_key(), "library");
  EXPECT_AOTRT_ERROR(Model::Load(path), ErrorCode::kInvalidArgument, {"not a model", "'library'", "Model::LoadGraph"});
}

TEST(LoadErrors, MissingRuntimeSymbolIsReportedAtLoad) {
  std::string path = DataDir() + "/needs_missing_symbol.so";
  EXPECT_AOTRT_ERROR(Module::LoadFromFile(path), ErrorCode::kNotFound,
              {path, "TVMBackendSomethingThatDoesNotExist", "a TVM runtime function that aotrt does not provide"});
}

TEST(LoadErrors, CorruptBlobInsideARealLibrary) {
  // Flip the blob's length header in a copy of a model: the loader reports, nothing runs.
  std::string bytes = ReadFile(ModelPath("add_c"));
  std::string entry_key("AotExecutorFactory");
  size_t key = bytes.find(entry_key);
  ASSERT_NE(key, std::string::npos);
  size_t header = key - 8 - 8 - 8;  // u64 payload length, u64 count, u64 key length
  std::string bad = bytes;
  bad[header + 5] = 0x7f;
  EXPECT_AOTRT_ERROR(Module::LoadFromFile(TempFile("blob_len.so", bad)), ErrorCode::kFormatError,
              {"__tvm_dev_mblob", "header claims"});
  bad = bytes;
  bad[key] = 'X';  // unknown type key
  EXPECT_AOTRT_ERROR(Module::LoadFromFile(TempFile("blob_key.so", bad)), ErrorCode::kFormatError,
              {"XotExecutorFactory", "loader of that name is not registered"});
}

TEST(LoadErrors, ManyLoadsOfTheSameFileAreIndependent) {
  std::vector<Model> models;
  for (int i = 0; i < 5; ++i) models.push_back(Model::Load(ModelPath("add_c")));
  for (Model& m : models) EXPECT_EQ(m.Inputs().size(), 2u);
}

TEST(LoadErrors, LoadsOfOneFileShareTheLibraryContext) {
  // dlopen of one file twice gives one library, hence one __tvm_module_ctx: freeing the later load
  // must leave the earlier one working (it reads the context through TVMBackendGetFuncFromEnv).
  Case c = GeneratedCase("multi_io_llvm");
  Model first = Model::Load(c.library);
  {
    Model second = Model::Load(c.library);
    Executor ex = second.CreateExecutor();
    SetCaseInputs(c, ex);
    ex.Run();
  }
  Executor ex = first.CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}

// Object exports (.tar of objects, .o) are linked into a library with the system compiler, as
// TVM's Python load_module does; every failure of that step is an error naming the file.
TEST(LoadErrors, ObjectExportFailures) {
  EXPECT_AOTRT_ERROR(Module::LoadFromFile("/nonexistent/model.tar"), ErrorCode::kNotFound,
              {"/nonexistent/model.tar", "no such file"});
  std::string not_tar = TempFile("not_an_archive.tar", "plain text, not an archive\n");
  EXPECT_AOTRT_ERROR(Module::LoadFromFile(not_tar), ErrorCode::kIOError, {"extracting", not_tar, "tar"});
  std::string dir = TempFile("empty_dir_marker", "");
  std::string empty_tar = dir + ".tar";
  ASSERT_EQ(std::system(("tar -cf " + empty_tar + " -C " + ::testing::TempDir() + " " +
                         dir.substr(dir.find_last_of('/') + 1)).c_str()), 0);
  EXPECT_AOTRT_ERROR(Module::LoadFromFile(empty_tar), ErrorCode::kNotFound, {empty_tar, "no object files"});
  std::string bad_object = TempFile("bad.o", "\x7f" "ELF but nothing more");
  EXPECT_AOTRT_ERROR(Module::LoadFromFile(bad_object), ErrorCode::kIOError, {"linking", bad_object, "failed"});
}

TEST(LoadErrors, ObjectExportWithoutACompiler) {
  std::string bad_object = TempFile("any.o", "whatever");
  const char* old = std::getenv("CC");
  std::string saved = old ? old : "";
  ::setenv("CC", "/nonexistent/cc", 1);
  EXPECT_AOTRT_ERROR(Module::LoadFromFile(bad_object), ErrorCode::kIOError, {"cannot run", "/nonexistent/cc"});
  if (old) ::setenv("CC", saved.c_str(), 1); else ::unsetenv("CC");
}

// Generated libraries (both flavours) calling a function nobody defines: refused at load through
// every entry point, the library closed again, and the process goes on loading and running models.
class MissingSymbol : public ::testing::TestWithParam<std::string> {};

TEST_P(MissingSymbol, IsRefusedAtLoadNamingSymbolFileAndProvider) {
  const std::string path = std::string(AOTRT_TEST_UNLOADABLE_DIR) + "/" + GetParam() + ".so";
  const std::string symbol = "aotrt_test_nobody_defines_this";
  const std::initializer_list<std::string> fragments = {path, symbol, "nothing in the process provides",
                                                        "readelf -d"};
  for (int attempt = 0; attempt < 2; ++attempt) {  // the same again: nothing was left half-loaded
    EXPECT_AOTRT_ERROR(Module::LoadFromFile(path), ErrorCode::kNotFound, fragments);
    EXPECT_AOTRT_ERROR(Model::Load(path), ErrorCode::kNotFound, fragments);
  }
  std::string bytes = ReadFile(path);
  EXPECT_AOTRT_ERROR(Model::LoadFromMemory(bytes.data(), bytes.size()), ErrorCode::kNotFound, {symbol});
  TVMModuleHandle h = nullptr;
  EXPECT_EQ(TVMModLoadFromFile(path.c_str(), "so", &h), -1);
  EXPECT_EQ(h, nullptr);
  EXPECT_NE(std::string(TVMGetLastError()).find(symbol), std::string::npos) << TVMGetLastError();
  EXPECT_EQ(AOTRTGetLastErrorCode(), static_cast<int>(ErrorCode::kNotFound));
  // The host lives on: a float16 model whose helpers come from aotrt loads and runs bit-exact.
  Case c = GeneratedCase("half_llvm");
  Executor ex = Model::Load(c.library).CreateExecutor();
  SetCaseInputs(c, ex);
  ex.Run();
  ExpectOutputsMatch(c, ex);
}

INSTANTIATE_TEST_SUITE_P(BothFlavours, MissingSymbol, ::testing::Values("missing_symbol_c", "missing_symbol_llvm"));

TEST(LoadErrors, SymbolsFromTheLibrarysOwnDependenciesCount) {
  // needs_provider.so calls a function of provider.so, a NEEDED library that is not in the global
  // scope: the check must look in the library's own dependency tree too, like the dynamic linker.
  void* global = dlopen(nullptr, RTLD_LAZY);
  ASSERT_EQ(dlsym(global, "aotrt_test_provided"), nullptr) << "precondition: not globally visible";
  dlclose(global);
  Module m = Module::LoadFromFile(DataDir() + "/needs_provider.so");
  EXPECT_EQ(m.type_key(), "library");
}
