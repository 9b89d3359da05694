// aotrt inspect MODEL.so [--json]
#include <algorithm>
#include <iostream>
#include <memory>

#include <aotrt/model.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "memory_report.h"
#include "model_io.h"
#include "model_info.h"
#include "run_scratch.h"
#include "table.h"
#include "vm_commands.h"

namespace aotrt_cli {
namespace {

struct InspectOptions {
  ModelSource model;
  bool json = false;
  bool no_run = false;
};

// Whether the library reaches the runtime function `symbol`: `c` exports leave it undefined and
// resolve it against libaotrt; `llvm` exports call it through the context pointer `__<symbol>`,
// which the load fills (ABI.md 2.1), so it never shows among their undefined symbols.
bool Needs(const ModelDetails& d, const char* symbol) {
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  return has(d.undefined_runtime_symbols, symbol) || has(d.context_pointers, std::string("__") + symbol);
}

// Scratch taken through TVMBackendAllocWorkspace at run time (models without memory planning):
// measured by one run on zeros unless --no-run; not applicable when the library never calls it.
RunScratch Scratch(const InspectOptions& o, const aotrt::Model& m, const ModelDetails& d) {
  RunScratch r;
  if (!Needs(d, "TVMBackendAllocWorkspace")) return r;
  if (o.no_run) {
    r.error = "not measured (--no-run)";
    return r;
  }
  return MeasureRunScratch(m);
}

// The caller-owned memory one executor needs (ExecutorOptions::Arena, Model::ArenaBytes), which
// for a model taking run-time scratch means one more run on zeros.
struct ArenaSize {
  bool known = false;
  uint64_t bytes = 0;
  std::string note;
};

ArenaSize Arena(const InspectOptions& o, const aotrt::Model& m, const ModelDetails& d) {
  ArenaSize a;
  if (o.no_run && (Needs(d, "TVMBackendAllocWorkspace") || Needs(d, "TVMBackendGetFuncFromEnv"))) {
    a.note = "not measured (--no-run): its run-time scratch is measured by a run";
    return a;
  }
  try {
    a.bytes = m.ArenaBytes();
    a.known = true;
  } catch (const std::exception& e) {
    a.note = std::string("not measured: ") + e.what();
  }
  return a;
}

nlohmann::ordered_json TensorsJson(const std::vector<aotrt::TensorInfo>& ts) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& t : ts) {
    out.push_back({{"name", t.name}, {"shape", t.shape}, {"dtype", aotrt::DataTypeToString(t.dtype)},
                   {"bytes", t.bytes}, {"shape_known", t.shape_known}});
  }
  return out;
}

nlohmann::ordered_json SizesJson(const std::vector<NamedSize>& v) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& s : v) out.push_back({{"name", s.name}, {"bytes", s.bytes}});
  return out;
}

void PrintJson(const InspectOptions& o, const aotrt::Model& m, const ModelDetails& d, const RunScratch& s,
               const ArenaSize& arena) {
  nlohmann::ordered_json params = nlohmann::ordered_json::array();
  for (const auto& p : d.params) {
    params.push_back({{"name", p.name}, {"shape", p.shape}, {"dtype", p.dtype}, {"bytes", p.bytes}});
  }
  nlohmann::ordered_json j = {
      {"path", o.model.path},
      {"model_names", d.model_names},
      {"mod_name", d.model_names.empty() ? std::string() : d.model_names.front()},
      {"symbol_prefix", d.mod_name},
      {"interface", m.Info().interface},
      {"flavour", d.flavour},
      {"flavour_reason", d.flavour_reason},
      {"inputs", TensorsJson(m.Inputs())},
      {"outputs", TensorsJson(m.Outputs())},
      {"workspace_pools", SizesJson(d.workspace_pools)},
      {"workspace_bytes", m.WorkspaceBytes()},
      {"workspace_slack_bytes", m.SlackBytes()},
      {"run_workspace", {{"allocated_per_run", Needs(d, "TVMBackendAllocWorkspace")},
                         {"measured", s.measured},
                         {"peak_bytes", s.measured ? nlohmann::ordered_json(s.peak_bytes) : nlohmann::ordered_json()},
                         {"note", s.error}}},
      {"constant_pool_bytes", d.constant_pool_bytes},
      {"constants", SizesJson(d.constants)},
      {"params", params},
      {"param_bytes", m.ParamBytes()},
      {"undefined_runtime_symbols", d.undefined_runtime_symbols},
      {"context_pointers", d.context_pointers},
      {"parallel_launch", LaunchesParallelWork(m.Info())},
      {"op_threads", OperatorThreadsFor(0).count},
      {"op_threads_source", OperatorThreadsFor(0).source},
      {"memory", MemoryJson(m.Info(), s.measured ? s.peak_bytes : 0)},
      {"arena_bytes", arena.known ? nlohmann::ordered_json(arena.bytes) : nlohmann::ordered_json()},
      {"arena_note", arena.note},
  };
  std::cout << j.dump(2) << "\n";
}

void PrintTensors(const char* title, const std::vector<aotrt::TensorInfo>& ts) {
  std::cout << title << " (" << ts.size() << ")\n";
  Table t({"name", "dtype", "shape", "bytes"}, {false, false, false, true});
  for (const auto& x : ts) {
    t.AddRow({x.name, aotrt::DataTypeToString(x.dtype), Shape(x.shape) + (x.shape_known ? "" : " (flat: no shape stated)"),
              std::to_string(x.bytes)});
  }
  t.Print(std::cout, "  ");
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "(none)" : s;
}

void PrintRunScratch(const ModelDetails& d, const RunScratch& s) {
  if (!Needs(d, "TVMBackendAllocWorkspace")) return;
  std::cout << "run-time scratch (TVMBackendAllocWorkspace, allocated during each run): ";
  if (s.measured) {
    std::cout << "peak " << Bytes(s.peak_bytes) << " in one run on zeros (calling thread";
    std::cout << (Needs(d, "TVMBackendParallelLaunch") ? ", plus what parallel workers take)\n" : ")\n");
  } else {
    std::cout << s.error << "\n";
  }
}

std::string InterfaceText(const aotrt::ModelInfo& info) {
  if (info.interface == "c") return "c (Model Library Format: tvmgen_<name>_run's structs of pointers, unpacked API)";
  return info.interface + " (TVM's packed API: a library export)";
}

void PrintText(const InspectOptions& o, const aotrt::Model& m, const ModelDetails& d, const RunScratch& s,
               const ArenaSize& arena) {
  std::cout << "model library   " << o.model.path << "\n"
            << "model name      " << Join(d.model_names) << " (symbols " << d.mod_name << "_*)\n"
            << "interface       " << InterfaceText(m.Info()) << "\n"
            << "build flavour   " << d.flavour << " (" << d.flavour_reason << ")\n\n";
  PrintTensors("inputs", m.Inputs());
  std::cout << "\n";
  PrintTensors("outputs", m.Outputs());
  std::cout << "\nworkspace pools (per executor): " << Bytes(m.WorkspaceBytes()) << " (+ " << Bytes(m.SlackBytes())
            << " reserved after them, resident only where written)\n";
  for (const auto& p : d.workspace_pools) std::cout << "  " << p.name << "  " << Bytes(p.bytes) << "\n";
  PrintRunScratch(d, s);
  std::cout << "constant pool (shared): " << Bytes(d.constant_pool_bytes) << "\n";
  for (const auto& c : d.constants) std::cout << "  " << c.name << "  " << Bytes(c.bytes) << "\n";
  std::cout << "params (shared): " << d.params.size() << ", " << Bytes(m.ParamBytes()) << "\n";
  if (!d.params.empty()) {
    Table t({"name", "dtype", "shape", "bytes"}, {false, false, false, true});
    for (const auto& p : d.params) t.AddRow({p.name, p.dtype, Shape(p.shape), std::to_string(p.bytes)});
    t.Print(std::cout, "  ");
  }
  std::cout << "\n";
  PrintMemory(std::cout, m.Info(), s.measured ? s.peak_bytes : 0);
  std::cout << "caller-owned arena for one executor (ExecutorOptions::Arena): ";
  if (arena.known) {
    std::cout << Bytes(arena.bytes) << ": I/O, pools, argument arrays"
              << (s.measured ? ", run-time scratch" : "") << "\n";
  } else {
    std::cout << arena.note << "\n";
  }
  std::cout << "\nruntime symbols the library needs: " << Join(d.undefined_runtime_symbols) << "\n"
            << "runtime context pointers it defines: " << Join(d.context_pointers) << "\n"
            << "parallel work: "
            << (LaunchesParallelWork(m.Info())
                    ? "its operators split loops with TVMBackendParallelLaunch, each over "
                    : "none (no TVMBackendParallelLaunch): operator threads, here ")
            << OperatorThreadsFor(0).Text() << (LaunchesParallelWork(m.Info()) ? " threads\n" : ", are not used\n");
}

}  // namespace

CLI::App* AddInspectCommand(CLI::App& app, Action* run) {
  auto opt = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand("inspect", "Show a model library's inputs, outputs, memory and runtime needs");
  AddModelSource(cmd, &opt->model);
  cmd->add_flag("--json", opt->json, "Print JSON instead of text");
  cmd->add_flag("--no-run", opt->no_run,
                "Do not run the model once on zeros to measure its TVMBackendAllocWorkspace scratch");
  *run = [opt] {
    aotrt::Model model;
    if (aotrt::Module vm = LoadModelOrVM(opt->model, &model); vm.defined()) {
      PrintVMInspect(vm, opt->model.path, opt->json);
      return 0;
    }
    ModelDetails details = GatherDetails(opt->model.path, model);
    RunScratch scratch = Scratch(*opt, model, details);
    ArenaSize arena = Arena(*opt, model, details);
    if (opt->json) {
      PrintJson(*opt, model, details, scratch, arena);
    } else {
      PrintText(*opt, model, details, scratch, arena);
    }
    return 0;
  };
  return cmd;
}

}  // namespace aotrt_cli
