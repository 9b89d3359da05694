#include "module/loader/elf_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error_util.h"
#include "base/unique_fd.h"

namespace aotrt {
namespace {

constexpr size_t kHeadBytes = 4096;  // the ELF and program headers of any library gcc or lld writes

class FileReader {
 public:
  FileReader(const std::string& path, const std::string& what) : what_(what) {
    fd_.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_.fd < 0) {
      int err = errno;
      if (err == ENOENT) AOTRT_THROW(kNotFound, what, ": no such file");
      AOTRT_THROW(kIOError, what, ": cannot open: ", std::strerror(err));
    }
    struct stat st {};
    if (::fstat(fd_.fd, &st) != 0 || !S_ISREG(st.st_mode)) AOTRT_THROW(kIOError, what, ": not a regular file");
    size_ = static_cast<uint64_t>(st.st_size);
  }

  uint64_t size() const { return size_; }

  // The `bytes` bytes at `offset`, which must lie inside the file (else kFormatError naming `field`).
  std::string Read(uint64_t offset, uint64_t bytes, const char* field) const {
    AOTRT_REQUIRE(offset <= size_ && bytes <= size_ - offset, kFormatError, what_, ": ELF ", field, " at offset ",
                  offset, " (", bytes, " bytes) lies outside the ", size_, "-byte file");
    std::string out(bytes, '\0');
    size_t done = 0;
    while (done < bytes) {
      ssize_t n = ::pread(fd_.fd, &out[done], bytes - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        AOTRT_THROW(kIOError, what_, ": cannot read ", field, " at offset ", offset + done, ": ",
                    n < 0 ? std::strerror(errno) : "the file ended early (changed while loading?)");
      }
      done += static_cast<size_t>(n);
    }
    return out;
  }

 private:
  UniqueFd fd_;
  std::string what_;
  uint64_t size_ = 0;
};

}  // namespace

ElfDynamicSymbols ReadSharedLibraryFile(const std::string& path, const std::string& what) {
  FileReader file(path, what);
  std::string head = file.Read(0, std::min<uint64_t>(file.size(), kHeadBytes), "header");
  Elf64_Ehdr eh = ReadElfHeader(head.data(), head.size(), what);
  // Program headers past the first page (no linker puts them there, but the format allows it).
  if (eh.e_phnum > 0 && (eh.e_phoff > head.size() || uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr) > head.size() - eh.e_phoff)) {
    AOTRT_REQUIRE(eh.e_phoff <= file.size(), kFormatError, what, ": ELF program headers at offset ", eh.e_phoff,
                  " lie outside the ", file.size(), "-byte file");
    head = file.Read(0, std::min<uint64_t>(file.size(), eh.e_phoff + uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr)),
                     "program headers");
  }
  CheckElfSegments(head.data(), head.size(), file.size(), what);

  ElfDynamicSymbols out;
  if (eh.e_shnum == 0) return out;  // no section headers: no symbols listed (as ReadElfDynamicSymbols)
  AOTRT_REQUIRE(eh.e_shentsize == sizeof(Elf64_Shdr), kFormatError, what, ": unexpected ELF section header size ",
                eh.e_shentsize);
  std::string sections = file.Read(eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr), "section header");
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    auto sh = ReadElfAt<Elf64_Shdr>(sections.data(), sections.size(), i * sizeof(Elf64_Shdr), what, "section header");
    if (sh.sh_type != SHT_DYNSYM) continue;
    AOTRT_REQUIRE(sh.sh_link < eh.e_shnum, kFormatError, what, ": symbol table links to section ", sh.sh_link,
                  " of ", eh.e_shnum);
    auto strtab =
        ReadElfAt<Elf64_Shdr>(sections.data(), sections.size(), sh.sh_link * sizeof(Elf64_Shdr), what, "section header");
    std::string strings = file.Read(strtab.sh_offset, strtab.sh_size, "symbol string table");
    std::string symbols = file.Read(sh.sh_offset, sh.sh_size, "symbol table");
    ForEachSymbolIn(symbols.data(), symbols.size(), strings.data(), strings.size(), what,
                    [&out](std::string name, const Elf64_Sym& sym) { AddDynamicSymbol(std::move(name), sym, &out); });
  }
  return out;
}

}  // namespace aotrt
