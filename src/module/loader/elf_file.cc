#include "module/loader/elf_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "base/error_util.h"
#include "base/unique_fd.h"
#include "module/loader/elf_symbols.h"

namespace aotrt {
namespace {

// The ELF header and the program headers of the libraries linkers write (64 + ~10 x 56 bytes).
constexpr size_t kHeadBytes = 1024;

// pread of all `bytes` bytes at `offset`; throws kIOError naming `field`.
void ReadInto(int fd, char* out, uint64_t offset, size_t bytes, const char* field, const std::string& what) {
  size_t done = 0;
  while (done < bytes) {
    ssize_t n = ::pread(fd, out + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      AOTRT_THROW(kIOError, what, ": cannot read ", field, " at offset ", offset + done, ": ",
                  n < 0 ? std::strerror(errno) : "the file ended early (changed while loading?)");
    }
    done += static_cast<size_t>(n);
  }
}

// The processor this library runs on, as ELF names it; 0: one it does not know (nothing checked).
#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
constexpr uint16_t kHostMachine = EM_RISCV;
#elif defined(__powerpc64__)
constexpr uint16_t kHostMachine = EM_PPC64;
#elif defined(__s390x__)
constexpr uint16_t kHostMachine = EM_S390;
#else
constexpr uint16_t kHostMachine = 0;
#endif

std::string MachineName(uint16_t m) {
  switch (m) {
    case EM_X86_64: return "x86-64 (EM_X86_64)";
    case EM_AARCH64: return "AArch64 (EM_AARCH64)";
    case EM_386: return "32-bit x86 (EM_386)";
    case EM_ARM: return "32-bit Arm (EM_ARM)";
    case EM_RISCV: return "RISC-V (EM_RISCV)";
    case EM_PPC64: return "64-bit POWER (EM_PPC64)";
    case EM_S390: return "IBM Z (EM_S390)";
    default: return "processor number " + std::to_string(m) + " (e_machine)";
  }
}

}  // namespace

void CheckElfMachine(const char* head, size_t size, const std::string& what) {
  // e_machine: bytes 18-19 in ELF32 and ELF64 alike, in the file's byte order.
  if (size < 20 || std::memcmp(head, ELFMAG, SELFMAG) != 0 || kHostMachine == 0) return;
  const bool known = (head[EI_CLASS] == ELFCLASS32 || head[EI_CLASS] == ELFCLASS64) &&
                     (head[EI_DATA] == ELFDATA2LSB || head[EI_DATA] == ELFDATA2MSB);
  if (!known) return;  // a class or byte order ELF does not define: not ELF enough to name a processor
  const auto* b = reinterpret_cast<const unsigned char*>(head);
  uint16_t m = head[EI_DATA] == ELFDATA2MSB ? uint16_t(b[18] << 8 | b[19]) : uint16_t(b[19] << 8 | b[18]);
  AOTRT_REQUIRE(m == kHostMachine, kFormatError, what, " was built for ", MachineName(m), "; this process runs on ",
                MachineName(kHostMachine), ": export the model for this processor, or run it on one it was built for");
}

void CheckElfObjectFile(const std::string& path, const std::string& what) {
  UniqueFd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  AOTRT_REQUIRE(f.fd >= 0, kIOError, what, ": cannot open: ", std::strerror(errno));
  char head[20];
  ssize_t n = ::pread(f.fd, head, sizeof head, 0);
  CheckElfMachine(head, n > 0 ? static_cast<size_t>(n) : 0, what);
}

void CheckSharedLibraryFile(const std::string& path, const std::string& what) {
  UniqueFd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) {
    int err = errno;
    if (err == ENOENT) AOTRT_THROW(kNotFound, what, ": no such file");
    AOTRT_THROW(kIOError, what, ": cannot open: ", std::strerror(err));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) AOTRT_THROW(kIOError, what, ": not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  char head[kHeadBytes];
  size_t head_size = static_cast<size_t>(std::min<uint64_t>(size, kHeadBytes));
  ReadInto(f.fd, head, 0, head_size, "header", what);
  CheckElfMachine(head, head_size, what);
  Elf64_Ehdr eh = ReadElfHeader(head, head_size, what);
  const uint64_t table_bytes = uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  if (eh.e_phnum == 0 || (eh.e_phoff <= head_size && table_bytes <= head_size - eh.e_phoff)) {
    CheckElfSegments(head, head_size, size, what);
    return;
  }
  // Program headers past the first KiB (no linker puts them there, but the format allows it): the
  // header and the program headers, read into one buffer of at most 3.6 MiB (e_phnum < 65536).
  AOTRT_REQUIRE(eh.e_phoff <= size && table_bytes <= size - eh.e_phoff, kFormatError, what,
                ": ELF program headers at offset ", eh.e_phoff, " (", eh.e_phnum, " of them) lie outside the ", size,
                "-byte file");
  const uint64_t table_at = eh.e_phoff;
  std::unique_ptr<char[]> headers(new char[sizeof eh + table_bytes]);
  eh.e_phoff = sizeof eh;  // the copy holds the table right after the header
  std::memcpy(headers.get(), &eh, sizeof eh);
  ReadInto(f.fd, headers.get() + sizeof eh, table_at, static_cast<size_t>(table_bytes),
           "program headers", what);
  CheckElfSegments(headers.get(), sizeof eh + table_bytes, size, what);
}

}  // namespace aotrt
