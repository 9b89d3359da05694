#include "module/loader/elf_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "base/error_util.h"
#include "base/unique_fd.h"

namespace aotrt {
namespace {

constexpr size_t kHeadBytes = 8192;  // headers, .dynsym and .dynstr of a TVM export: one read

// The file's first kHeadBytes are read once: they hold the headers and, in the libraries linkers
// write, .dynsym and .dynstr too, so a load reads two ranges (this one and the section headers at
// the end), whatever the file's size. The buffer is on the heap, not the stack: freed, its pages
// serve the load's next allocations, where 8 KiB of stack below the usual depth would stay
// resident (and private) for nothing.
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
    head_size_ = static_cast<size_t>(std::min<uint64_t>(size_, kHeadBytes));
    head_.reset(new char[head_size_ == 0 ? 1 : head_size_]);  // not zero-filled: only read bytes are used
    ReadInto(head_.get(), 0, head_size_, "header");
  }

  uint64_t size() const { return size_; }

  // The `bytes` bytes at `offset`, which must lie inside the file (else kFormatError naming
  // `field`): in the head when they lie there, else read into `*holder`.
  const char* Bytes(uint64_t offset, uint64_t bytes, const char* field, std::string* holder) const {
    AOTRT_REQUIRE(offset <= size_ && bytes <= size_ - offset, kFormatError, what_, ": ELF ", field, " at offset ",
                  offset, " (", bytes, " bytes) lies outside the ", size_, "-byte file");
    if (offset + bytes <= head_size_) return head_.get() + offset;
    holder->resize(bytes);
    ReadInto(&(*holder)[0], offset, bytes, field);
    return holder->data();
  }

 private:
  void ReadInto(char* out, uint64_t offset, uint64_t bytes, const char* field) const {
    size_t done = 0;
    while (done < bytes) {
      ssize_t n = ::pread(fd_.fd, out + done, bytes - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        AOTRT_THROW(kIOError, what_, ": cannot read ", field, " at offset ", offset + done, ": ",
                    n < 0 ? std::strerror(errno) : "the file ended early (changed while loading?)");
      }
      done += static_cast<size_t>(n);
    }
  }

  UniqueFd fd_;
  std::string what_;
  uint64_t size_ = 0;
  size_t head_size_ = 0;
  std::unique_ptr<char[]> head_;
};

}  // namespace

ElfDynamicSymbols ReadSharedLibraryFile(const std::string& path, const std::string& what) {
  FileReader file(path, what);
  std::string holder;
  const char* head = file.Bytes(0, std::min<uint64_t>(file.size(), kHeadBytes), "header", &holder);
  size_t head_size = static_cast<size_t>(std::min<uint64_t>(file.size(), kHeadBytes));
  Elf64_Ehdr eh = ReadElfHeader(head, head_size, what);
  // Program headers past the first page (no linker puts them there, but the format allows it).
  if (eh.e_phnum > 0 && (eh.e_phoff > head_size || uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr) > head_size - eh.e_phoff)) {
    AOTRT_REQUIRE(eh.e_phoff <= file.size(), kFormatError, what, ": ELF program headers at offset ", eh.e_phoff,
                  " lie outside the ", file.size(), "-byte file");
    head_size = static_cast<size_t>(
        std::min<uint64_t>(file.size(), eh.e_phoff + uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr)));
    head = file.Bytes(0, head_size, "program headers", &holder);
  }
  CheckElfSegments(head, head_size, file.size(), what);

  ElfDynamicSymbols out;
  ElfRangeReader from_file = [&file](uint64_t offset, uint64_t bytes, const char* field, std::string* holder) {
    return file.Bytes(offset, bytes, field, holder);
  };
  ForEachElfSymbolIn(eh, from_file, what, SHT_DYNSYM,
                     [&out](std::string name, const Elf64_Sym& sym) { AddDynamicSymbol(std::move(name), sym, &out); });
  return out;
}

}  // namespace aotrt
