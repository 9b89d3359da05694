#include "memory/guard_fault.h"

#include <dlfcn.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace aotrt {
namespace {

constexpr int kSlots = 1024;  // live pools and large blocks; more still get a guard, without the message
constexpr size_t kLabel = 224;

// One registered guard. `buffer` is the key: 0 free, 1 being written, else the buffer's address
// (published last, with release order, so the handler sees the other fields complete).
struct Slot {
  std::atomic<uintptr_t> buffer{0};
  uintptr_t guard_begin = 0;
  uintptr_t guard_end = 0;
  size_t bytes = 0;
  char label[kLabel] = {};
};

Slot g_slots[kSlots];  // zero-initialised .bss: only the pages of used slots become resident
std::atomic<int> g_high{0};  // slots [0, g_high) have been used
std::atomic<bool> g_report{false};
std::atomic<bool> g_installed{false};
struct sigaction g_previous;

// --- async-signal-safe formatting ----------------------------------------------------------------
struct Dec { uint64_t v; };  // 5233328 -> 5,233,328
struct HexNum { uint64_t v; };  // 0x...
struct Line {
  char buf[1024];
  size_t n = 0;
  void Put(const char* s) {
    while (s && *s && n + 1 < sizeof buf) buf[n++] = *s++;
  }
  void Digits(uint64_t v, unsigned base, bool group) {
    char d[32];
    int k = 0;
    do {
      d[k++] = "0123456789abcdef"[v % base];
      v /= base;
    } while (v);
    for (int i = k - 1; i >= 0 && n + 1 < sizeof buf; --i) {
      buf[n++] = d[i];
      if (group && i > 0 && i % 3 == 0 && n + 1 < sizeof buf) buf[n++] = ',';
    }
  }
  void Put(Dec d) { Digits(d.v, 10, true); }
  void Put(HexNum h) {
    Put("0x");
    Digits(h.v, 16, false);
  }
  template <typename... T>
  void Add(T... parts) { (Put(parts), ...); }
  void Write() {
    buf[n++] = '\n';
    for (size_t off = 0; off < n;) {
      ssize_t w = ::write(STDERR_FILENO, buf + off, n - off);
      if (w <= 0) return;
      off += static_cast<size_t>(w);
    }
  }
};

void Report(const Slot& s, uintptr_t addr, void* ucontext) {
  const char* verb = "accessed";  // "wrote" / "read" where the machine says which (x86-64's page-fault error code)
#if defined(__x86_64__)
  if (ucontext) verb = (static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_ERR] & 2) ? "wrote" : "read";
#endif
  Line l;
  uintptr_t end = s.buffer.load(std::memory_order_relaxed) + s.bytes;
  l.Add("aotrt: fatal: generated code ", verb, " ", Dec{addr - end + 1}, " bytes past ", s.label,
        ", beyond the ", Dec{s.guard_begin - end}, "-byte reserve after it (address ", HexNum{addr}, ")");
  uintptr_t pc = SignalPc(ucontext);
  Dl_info info;
  if (pc && ::dladdr(reinterpret_cast<void*>(pc), &info) && info.dli_fname) {
    l.Add("; the instruction is in ", info.dli_sname ? info.dli_sname : info.dli_fname);
    if (info.dli_sname) l.Add(" (", info.dli_fname, ")");
    else l.Add(" at offset ", HexNum{pc - reinterpret_cast<uintptr_t>(info.dli_fbase)});
  }
  l.Add(". A bug in the model's generated code (a buffer smaller than the code that writes it); aotrt absorbs "
        "writes within the reserve (and reports them with AOTRT_CHECK_BOUNDS=1), not this far. Stopping with SIGSEGV.");
  l.Write();
}

// The previous disposition, as if aotrt had never installed its handler.
void Chain(int sig, siginfo_t* info, void* ucontext) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) g_previous.sa_sigaction(sig, info, ucontext);
    return;
  }
  if (g_previous.sa_handler == SIG_DFL || g_previous.sa_handler == SIG_IGN) {
    // Returning re-executes the faulting instruction, which now gets the default action.
    ::signal(sig, SIG_DFL);  // async-signal-safe (POSIX)
    return;
  }
  g_previous.sa_handler(sig);
}

void Handler(int sig, siginfo_t* info, void* ucontext) {
  int saved_errno = errno;
  if (info && (info->si_code == SEGV_ACCERR || info->si_code == SEGV_MAPERR)) {
    uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
    int high = g_high.load(std::memory_order_acquire);
    for (int i = 0; i < high; ++i) {
      const Slot& s = g_slots[i];
      if (s.buffer.load(std::memory_order_acquire) > 1 && addr >= s.guard_begin && addr < s.guard_end) {
        Report(s, addr, ucontext);
        break;
      }
    }
  }
  errno = saved_errno;
  Chain(sig, info, ucontext);
}

void InstallOnce() noexcept {
  static std::atomic<bool> tried{false};
  if (tried.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_sigaction = Handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGSEGV, &sa, &g_previous) == 0) g_installed.store(true);
}

}  // namespace

uintptr_t SignalPc(void* ucontext) {
  if (!ucontext) return 0;
  const ucontext_t* uc = static_cast<const ucontext_t*>(ucontext);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

int RegisterGuard(const void* buffer, size_t buffer_bytes, const void* guard_begin, const void* guard_end,
                  const char* label) noexcept {
  if (g_report.load(std::memory_order_relaxed)) InstallOnce();
  for (int i = 0; i < kSlots; ++i) {
    uintptr_t expected = 0;
    if (!g_slots[i].buffer.compare_exchange_strong(expected, 1, std::memory_order_acquire)) continue;
    Slot& s = g_slots[i];
    s.guard_begin = reinterpret_cast<uintptr_t>(guard_begin);
    s.guard_end = reinterpret_cast<uintptr_t>(guard_end);
    s.bytes = buffer_bytes;
    size_t n = 0;
    for (; label && label[n] && n + 1 < kLabel; ++n) s.label[n] = label[n];
    s.label[n] = '\0';
    s.buffer.store(reinterpret_cast<uintptr_t>(buffer), std::memory_order_release);
    int high = g_high.load(std::memory_order_relaxed);
    while (high < i + 1 && !g_high.compare_exchange_weak(high, i + 1, std::memory_order_release)) {
    }
    return i;
  }
  return -1;
}

void UnregisterGuard(int handle) noexcept {
  if (handle >= 0 && handle < kSlots) g_slots[handle].buffer.store(0, std::memory_order_release);
}

void ReportGuardFaults() noexcept { g_report.store(true); }

bool GuardFaultHandlerInstalled() noexcept { return g_installed.load(); }

}  // namespace aotrt
