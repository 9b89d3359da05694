// The reserve after workspace pools and large workspace blocks (issue 26, memory/reserve.h): address
// space that costs no memory until written (shown with /proc/self/smaps), checked without making
// it resident (mincore), and a guard after it whose fault is reported before the process dies.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <tvm/runtime/c_backend_api.h>

#include "memory/reserve.h"
#include "backend/workspace.h"
#include "memory/guard_fault.h"

using namespace aotrt;

namespace {

const size_t kPage = PageSize();  // 4 KiB, or 16/64 KiB on some aarch64 kernels

// The /proc/self/smaps entry of the mapping that starts at `start`.
struct Vma {
  bool found = false;
  uintptr_t end = 0;
  std::string perms;
  size_t rss_kb = 0, private_kb = 0;
};

Vma SmapsAt(const void* start) {
  std::ifstream in("/proc/self/smaps");
  std::string line;
  Vma v;
  bool in_it = false;
  while (std::getline(in, line)) {
    unsigned long lo, hi;
    char perms[8];
    if (std::sscanf(line.c_str(), "%lx-%lx %7s", &lo, &hi, perms) == 3 && line.find(':') > line.find(' ')) {
      if (in_it) break;
      in_it = lo == reinterpret_cast<uintptr_t>(start);
      if (in_it) {
        v.found = true;
        v.end = hi;
        v.perms = perms;
      }
      continue;
    }
    if (!in_it) continue;
    size_t kb = 0;
    char key[64];
    if (std::sscanf(line.c_str(), "%63[^:]: %zu kB", key, &kb) != 2) continue;
    std::string k = key;
    if (k == "Rss") v.rss_kb = kb;
    if (k == "Private_Clean" || k == "Private_Dirty") v.private_kb += kb;
  }
  return v;
}

size_t ResidentPages(const uint8_t* p, size_t bytes) {
  std::vector<unsigned char> vec(bytes / kPage);
  if (::mincore(const_cast<uint8_t*>(p), bytes, vec.data()) != 0) return SIZE_MAX;
  size_t n = 0;
  for (unsigned char c : vec) n += c & 1;
  return n;
}

// Writes `n` bytes from `p` with the generator's pattern (never 0 nor the canary).
void WritePattern(uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(0xE1 + i % 31);
}

}  // namespace

TEST(Reserve, AsLargeAsTheBufferAndFreeUntilTouched) {
  const size_t bytes = 5218304;  // the pool of overrun_reserve_usmp_llvm
  ReservedSpan s = MapReserved(bytes, "test pool");
  ASSERT_NE(s.data, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s.data) % kHugePage, 0u);  // huge-page aligned from 2 MiB
  EXPECT_EQ(s.capacity, (bytes + kPage - 1) / kPage * kPage);
  EXPECT_GE(s.reserve, bytes);
  EXPECT_EQ(s.mapped, s.capacity + s.reserve + kGuardBytes);
  std::memset(s.data, 1, bytes);  // the model fills its pool
  Vma pool = SmapsAt(s.data), reserve = SmapsAt(s.data + s.capacity), guard = SmapsAt(s.data + s.capacity + s.reserve);
  ASSERT_TRUE(pool.found && reserve.found && guard.found);
  EXPECT_EQ(pool.perms, "rw-p");
  EXPECT_EQ(pool.rss_kb, s.capacity / 1024);
  EXPECT_EQ(reserve.perms, "rw-p");
  EXPECT_EQ(reserve.end, reinterpret_cast<uintptr_t>(s.data + s.capacity + s.reserve));
  EXPECT_EQ(reserve.rss_kb, 0u) << "an untouched reserve must cost no resident memory";
  EXPECT_EQ(reserve.private_kb, 0u);
  EXPECT_EQ(guard.perms, "---p");
  EXPECT_EQ(guard.end - reinterpret_cast<uintptr_t>(s.data + s.capacity + s.reserve), kGuardBytes);
  EXPECT_EQ(ResidentPages(s.data + s.capacity, s.reserve), 0u);
  UnmapReserved(&s);
  EXPECT_EQ(s.data, nullptr);
}

TEST(Reserve, CheckCountsEveryByteWithoutMakingTheReserveResident) {
  const size_t bytes = 5218304, past = 1247056;  // the overrun of the real export: 24% of the pool
  PoolBuffer p("global_workspace", bytes);
  uint8_t* end = p.data() + bytes;
  EXPECT_FALSE(p.TakeOverrun().found());
  const uint8_t* reserve = p.data() + (bytes + kPage - 1) / kPage * kPage;
  EXPECT_EQ(ResidentPages(reserve, p.reserve()), 0u) << "checking an untouched reserve must not fault it in";

  WritePattern(end, past);
  Vma written = SmapsAt(reserve);
  EXPECT_GE(written.rss_kb * 1024, past - (reserve - end));
  EXPECT_LE(written.rss_kb * 1024, past - (reserve - end) + kPage);  // only the pages written
  Overrun o = p.TakeOverrun();
  EXPECT_EQ(o.bytes_past, past);
  EXPECT_EQ(o.zeros_to, 0u);
  EXPECT_EQ(SmapsAt(reserve).rss_kb, 0u) << "the check gives the written pages back";
  EXPECT_FALSE(p.TakeOverrun().found());  // restored: the next run is checked afresh

  // The last byte of the reserve; a single byte (this pool ends on a page: no canary part).
  end[p.slack() - 1] = 9;
  EXPECT_EQ(p.TakeOverrun().bytes_past, p.slack());
  end[10] = 7;
  EXPECT_EQ(p.TakeOverrun().bytes_past, 11u);
}

TEST(Reserve, ReadsAreNotWritesAndZerosAreStillFound) {
  PoolBuffer p("global_workspace", 100000);
  uint8_t* end = p.data() + 100000;
  const size_t tail = p.slack() - p.reserve();  // rest of the last page
  volatile uint8_t sink = end[tail + 5 * kPage];  // a read maps the shared zero page
  (void)sink;
  EXPECT_FALSE(p.TakeOverrun().found());
  if (::access("/proc/self/pagemap", R_OK) != 0) GTEST_SKIP() << "no /proc/self/pagemap";
  if (!ReadsMapTheZeroPage()) GTEST_SKIP() << "a read maps a page of its own on this kernel: zeros written are not told";
  end[tail + 3 * kPage + 7] = 0;  // a written page holding zeros only
  Overrun o = p.TakeOverrun();
  EXPECT_EQ(o.bytes_past, 0u);
  EXPECT_EQ(o.zeros_to, tail + 4 * kPage);  // to the end of that page: where in it is unknowable
  end[1] = 0x42;
  end[tail + 2 * kPage] = 0;
  o = p.TakeOverrun();
  EXPECT_EQ(o.bytes_past, 2u);
  EXPECT_EQ(o.zeros_to, tail + 3 * kPage);
}

TEST(Reserve, LargeWorkspaceBlocksGetOneToo) {
  const uint64_t n = 1 << 20, past = 251658;  // 24%
  {
    WorkspaceBoundsCheck check;
    auto* b = static_cast<uint8_t*>(TVMBackendAllocWorkspace(kDLCPU, 0, n, 0, 0));
    ASSERT_NE(b, nullptr);
    WritePattern(b + n, past);
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
    EXPECT_EQ(check.overrun().bytes_past, past);
    EXPECT_EQ(check.overrun().block_bytes, n);
  }
  {
    // Reused for a smaller request: the room after the request is checked from the request on.
    WorkspaceBoundsCheck check;
    auto* b = static_cast<uint8_t*>(TVMBackendAllocWorkspace(kDLCPU, 0, n - 100000, 0, 0));
    WritePattern(b + n - 100000, 150000);
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
    EXPECT_EQ(check.overrun().bytes_past, 150000u);
  }
  {
    // A small block: a heap block with room of its own size, all of it checked.
    WorkspaceBoundsCheck check;
    auto* b = static_cast<uint8_t*>(TVMBackendAllocWorkspace(kDLCPU, 0, 10000, 0, 0));
    WritePattern(b + 10000, 10000);
    EXPECT_EQ(TVMBackendFreeWorkspace(kDLCPU, 0, b), 0);
    EXPECT_EQ(check.overrun().bytes_past, 10000u);
  }
}

namespace {
// How a process dies of the guard's fault: SIGSEGV, or under a sanitizer, whose handler aotrt's
// hands the signal on to, the sanitizer's own exit after its report.
bool DiedOfTheFault(int status) {
  return (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

void HostHandler(int) {
  const char msg[] = "host handler ran\n";
  ssize_t w = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)w;
  _exit(7);
}
}  // namespace

// By default a guard's fault is not aotrt's to report: no process-wide handler is installed.
// (Declared first: in "fast" style the child is a fork, and the next test asks for the handler.)
TEST(ReserveDeathTest, NoHandlerIsInstalledUnlessAsked) {
  GTEST_FLAG_SET(death_test_style, AOTRT_TEST_DEATH_TEST_STYLE);  // tests/CMakeLists.txt
  EXPECT_EXIT(
      {
        PoolBuffer p("global_workspace", 4096, "pool P");
        _exit(GuardFaultHandlerInstalled() ? 3 : 0);
      },
      testing::ExitedWithCode(0), "");
}

// Asked for: past even the reserve, the guard faults, aotrt says what and where, and the process dies as it
// would have (here by SIGSEGV; a host's own handler still runs after the report).
TEST(ReserveDeathTest, WritePastTheReserveIsReportedThenFatal) {
  GTEST_FLAG_SET(death_test_style, AOTRT_TEST_DEATH_TEST_STYLE);  // tests/CMakeLists.txt
  ReportGuardFaults();  // AOTRT_REPORT_GUARD_FAULTS=1
  const size_t room = 2 * kPage - 1000;  // the rest of the page and a page of reserve: 7,192 bytes with 4 KiB pages
  EXPECT_EXIT(
      {
        PoolBuffer p("global_workspace", 1000, "workspace pool 'global_workspace' (1,000 bytes) of model 'm' (m.so)");
        volatile uint8_t* end = p.data() + 1000;
        for (size_t i = 0; i < room + 5000; ++i) end[i] = 1;  // the (room + 1)th faults
      },
      DiedOfTheFault,
      "aotrt: fatal: generated code (wrote|accessed) " + GroupedNumber(room + 1) +
          " bytes past workspace pool 'global_workspace' \\(1,000 bytes\\) of model 'm' \\(m.so\\), beyond the " +
          GroupedNumber(room) + "-byte reserve after it \\(address 0x[0-9a-f]+\\)");
  EXPECT_EXIT(
      {
        struct sigaction sa {};
        sa.sa_handler = HostHandler;
        ::sigaction(SIGSEGV, &sa, nullptr);
        PoolBuffer p("global_workspace", kPage, "pool P");
        p.data()[kPage + kPage + 100] = 1;  // a page of reserve: the guard
      },
      testing::ExitedWithCode(7),
      "generated code (wrote|accessed) " + GroupedNumber(kPage + 101) + " bytes past pool P[^\n]*\nhost handler ran");
  // A fault elsewhere is not aotrt's: nothing is reported, the host's handler gets it.
  EXPECT_EXIT(
      {
        struct sigaction sa {};
        sa.sa_handler = HostHandler;
        ::sigaction(SIGSEGV, &sa, nullptr);
        PoolBuffer p("global_workspace", 4096, "pool P");
        ASSERT_TRUE(GuardFaultHandlerInstalled());
        // An inaccessible page of nobody's (not null: UBSan would stop a null store first).
        void* other = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        *static_cast<volatile int*>(other) = 1;
      },
      testing::ExitedWithCode(7), "^host handler ran\n$");
}
