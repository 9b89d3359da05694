// aotrt devices: the devices aotrt can run exports on, as runtime.GetDeviceAttr answers for each
// (TVM's names), and for a device type with none, why and what to install.
#include <iostream>

#include <aotrt/model.h>
#include <aotrt/packed_func.h>

#include "commands.h"
#include "table.h"

namespace aotrt_cli {
namespace {

int ListDevices() {
  aotrt::PackedFunc attr = aotrt::GetGlobalFunction("runtime.GetDeviceAttr");
  auto num = [&](int type, int id, int kind) -> int64_t {
    aotrt::TVMRetValue rv = attr(type, id, kind);
    return rv.type_code() == kDLInt ? rv.value().v_int64 : 0;
  };
  auto text = [&](int type, int id, int kind) -> std::string {
    aotrt::TVMRetValue rv = attr(type, id, kind);
    return rv.type_code() == kTVMStr ? rv.str() : "-";
  };
  Table t({"device", "name", "version", "driver", "compute units", "max threads", "memory (MiB)"},
          {false, false, false, false, true, true, true});
  struct Type {
    const char* name;
    int code;
  };
  for (const Type& type : {Type{"cpu", kDLCPU}, Type{"opencl", kDLOpenCL}, Type{"cuda", kDLCUDA}, Type{"vulkan", kDLVulkan}}) {
    int id = 0;
    for (; id < 64 && num(type.code, id, 0) == 1; ++id) {
      std::string dev = std::string(type.name) + ":" + std::to_string(id);
      if (type.code == kDLCPU) {
        t.AddRow({dev, "host", "-", "-", "-", "-", "-"});
        continue;
      }
      t.AddRow({dev, text(type.code, id, 5), text(type.code, id, 4), text(type.code, id, 12),
                std::to_string(num(type.code, id, 7)), std::to_string(num(type.code, id, 1)),
                std::to_string(num(type.code, id, 14) >> 20)});
    }
    if (id == 0) {
      std::string why;
      try {
        aotrt::NDArray::Empty({1}, DLDataType{kDLUInt, 8, 1}, DLDevice{static_cast<DLDeviceType>(type.code), 0});
      } catch (const aotrt::Error& e) {
        why = e.what();
      }
      std::cout << type.name << ": none (" << why << ")\n";
    }
  }
  t.Print(std::cout);
  return 0;
}

}  // namespace

CLI::App* AddDevicesCommand(CLI::App& app, Action* run) {
  CLI::App* cmd = app.add_subcommand("devices", "List the devices exports can run on (--device of run, bench, profile)");
  *run = [] { return ListDevices(); };
  return cmd;
}

}  // namespace aotrt_cli
