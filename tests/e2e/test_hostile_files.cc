// Model files corrupted the way a hostile tester did (issue 12): counts, sizes and segments that
// lie. Each is refused at load with an error naming the file and the field; none crashes.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <fstream>

#include <tvm/runtime/c_backend_api.h>
#include <tvm/runtime/metadata_types.h>

#include "aotrt/model.h"
#include "common/expect_error.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string TempFile(const std::string& name, const std::string& bytes) {
  std::string path = ::testing::TempDir() + "/aotrt_hostile_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

template <typename T>
T& At(std::string& bytes, size_t offset) {
  return *reinterpret_cast<T*>(&bytes[offset]);
}

// The file offset of virtual address `vaddr` (relative to the load bias), from the program headers.
size_t FileOffset(std::string& elf, uintptr_t vaddr) {
  const auto& eh = At<Elf64_Ehdr>(elf, 0);
  for (int i = 0; i < eh.e_phnum; ++i) {
    const auto& ph = At<Elf64_Phdr>(elf, eh.e_phoff + i * sizeof(Elf64_Phdr));
    if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
      return vaddr - ph.p_vaddr + ph.p_offset;
    }
  }
  ADD_FAILURE() << "address 0x" << std::hex << vaddr << " is not in the file";
  return 0;
}

// A copy of `model` with its metadata edited: `edit(bytes, offset_of)` gets the file and a function
// giving the file offset of any address inside the loaded original (found through get_c_metadata).
template <typename Edit>
std::string EditedCopy(const std::string& model, const std::string& name, Edit edit) {
  std::string bytes = ReadFile(model);
  void* h = ::dlopen(model.c_str(), RTLD_LAZY | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << ::dlerror();
  link_map* lm = nullptr;
  ::dlinfo(h, RTLD_DI_LINKMAP, &lm);
  auto get = reinterpret_cast<TVMBackendPackedCFunc>(::dlsym(h, "get_c_metadata"));
  TVMValue ret{};
  int code = 0;
  EXPECT_EQ(get(nullptr, nullptr, 0, &ret, &code, nullptr), 0);
  auto offset_of = [&](const void* p) { return FileOffset(bytes, reinterpret_cast<uintptr_t>(p) - lm->l_addr); };
  edit(bytes, static_cast<const TVMMetadata*>(ret.v_handle), offset_of);
  ::dlclose(h);
  return TempFile(name, bytes);
}

// The dynamic symbol `name` of an ELF file held in `elf`.
Elf64_Sym& DynamicSymbol(std::string& elf, const std::string& name) {
  const auto& eh = At<Elf64_Ehdr>(elf, 0);
  for (int i = 0; i < eh.e_shnum; ++i) {
    const auto& sh = At<Elf64_Shdr>(elf, eh.e_shoff + i * sizeof(Elf64_Shdr));
    if (sh.sh_type != SHT_DYNSYM) continue;
    const auto& strtab = At<Elf64_Shdr>(elf, eh.e_shoff + sh.sh_link * sizeof(Elf64_Shdr));
    for (size_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); ++k) {
      auto& sym = At<Elf64_Sym>(elf, sh.sh_offset + k * sizeof(Elf64_Sym));
      if (name == &elf[strtab.sh_offset + sym.st_name]) return sym;
    }
  }
  throw std::runtime_error("no dynamic symbol " + name);
}

}  // namespace

TEST(HostileFiles, MetadataCountPastItsArray) {
  std::string path = EditedCopy(ModelPath("multi_io_c"), "count.so", [](std::string& b, const TVMMetadata* md, auto at) {
    At<int64_t>(b, at(&md->num_inputs)) = 60000;
  });
  EXPECT_AOTRT_ERROR(Model::Load(path), ErrorCode::kFormatError,
                     {path, "invalid metadata: inputs (60000 entries) pointer 0x", "outside the library's mapped segments"});
  std::string outputs = EditedCopy(ModelPath("multi_io_llvm"), "outputs.so", [](std::string& b, const TVMMetadata* md, auto at) {
    At<int64_t>(b, at(&md->num_outputs)) = 20000;
  });
  EXPECT_AOTRT_ERROR(Model::Load(outputs), ErrorCode::kFormatError, {outputs, "outputs (20000 entries) pointer"});
}

TEST(HostileFiles, ConstantDataLenPastTheMapping) {
  std::string path = EditedCopy(ModelPath("usmp_both_c"), "data_len.so", [](std::string& b, const TVMMetadata* md, auto at) {
    ASSERT_GT(md->num_constant_pools, 0);
    At<int64_t>(b, at(&md->constant_pools[0].data_len)) = int64_t{1} << 36;
  });
  EXPECT_AOTRT_ERROR(Model::Load(path), ErrorCode::kFormatError,
                     {path, "constant_pools[0]", ".data_bytes pointer", "(68719476736 bytes) is outside"});
}

TEST(HostileFiles, BlobSymbolSizeIsBoundedByItsSegment) {
  std::string bytes = ReadFile(ModelPath("add_c"));
  DynamicSymbol(bytes, "__tvm_dev_mblob").st_size = uint64_t{1} << 40;
  std::string inflated = TempFile("inflated.so", bytes);
  EXPECT_AOTRT_ERROR(Model::Load(inflated), ErrorCode::kFormatError,
                     {inflated, "the .dynsym size of __tvm_dev_mblob (1099511627776 bytes) runs past the end of its mapped segment"});
  // Size 0 (as with no section headers) no longer switches the bound off: the segment bounds it.
  DynamicSymbol(bytes, "__tvm_dev_mblob").st_size = 0;
  Model::Load(TempFile("unsized.so", bytes));
  size_t blob = bytes.find("AotExecutorFactory") - 24;  // u64 payload length, count, key length
  At<uint64_t>(bytes, blob) = uint64_t{1} << 32;
  std::string lying = TempFile("lying_header.so", bytes);
  EXPECT_AOTRT_ERROR(Model::Load(lying), ErrorCode::kFormatError, {lying, "header claims 4294967296 payload bytes"});
}

TEST(HostileFiles, TruncatedLibraryWithoutSectionHeaders) {
  std::string bytes = ReadFile(ModelPath("add_c"));
  auto& eh = At<Elf64_Ehdr>(bytes, 0);
  eh.e_shoff = 0;
  eh.e_shnum = 0;
  eh.e_shstrndx = 0;
  size_t end = 0;
  for (int i = 0; i < eh.e_phnum; ++i) {
    const auto& ph = At<Elf64_Phdr>(bytes, eh.e_phoff + i * sizeof(Elf64_Phdr));
    if (ph.p_type == PT_LOAD) end = std::max<size_t>(end, ph.p_offset + ph.p_filesz);
  }
  std::string path = TempFile("no_sections.so", bytes.substr(0, end - 64));
  EXPECT_AOTRT_ERROR(Model::Load(path), ErrorCode::kFormatError,
                     {path, "ELF segment", "(PT_LOAD) covers file bytes", "but the file has only " + std::to_string(end - 64) + " bytes", "truncated"});
  // Not truncated, only without section headers: still loads (the bounds come from the segments).
  EXPECT_EQ(Model::Load(TempFile("no_sections_whole.so", bytes)).Inputs().size(), 2u);
}

TEST(HostileFiles, ModelIsToldByContentNotFileName) {
  std::string bin = TempFile("model.bin", ReadFile(ModelPath("add_c")));
  EXPECT_EQ(Model::Load(bin).Inputs().size(), 2u);
  std::string noext = TempFile("model_without_extension", ReadFile(ModelPath("add_llvm")));
  EXPECT_EQ(Model::Load(noext).Inputs().size(), 2u);
  std::string text = TempFile("notes.txt", "not a model\n");
  EXPECT_AOTRT_ERROR(Model::Load(text), ErrorCode::kNotFound,
                     {"Loader for `.txt` files is not registered", text, "neither a shared library (ELF) nor an object archive"});
}
