// libFuzzer target: the Relay VM's bytecode reader (vm/executable.h), which validates a whole
// executable (sections, instructions, every index) before anything runs it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "aotrt/error.h"
#include "vm/executable.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    aotrt::vm::Executable exe =
        aotrt::vm::ParseExecutable(std::string(reinterpret_cast<const char*>(data), size), "VM bytecode");
    (void)aotrt::vm::BytecodeText(exe);
  } catch (const aotrt::Error&) {
  }
  return 0;
}
