// Real TVM v0.14 GraphExecutor exports (../shared/fixtures/graph): factory libraries and the classic
// triple, bit-exact through the C++ API, with params shared by executors, zero-copy I/O, the
// caller's arena, threads, and the errors of bad graphs and params.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <thread>

#include "common/expect_error.h"
#include "aotrt/profiling.h"
#include "common/run_case.h"

using namespace aotrt;
using namespace aotrt_test;

namespace {

std::string GraphFixturesDir() { return AOTRT_TEST_GRAPH_FIXTURES_NPY_DIR; }

// The case `name` of ../shared/fixtures/graph; its library is what Model::Load takes (model.so, or
// the folder of the classic triple). name empty when absent.
Case GraphCase(const std::string& name) {
  if (GraphFixturesDir().empty()) return Case();
  std::string dir = GraphFixturesDir() + "/" + name;
  std::ifstream in(dir + "/case.json");
  if (!in) return Case();
  return LoadCase(dir, nlohmann::json::parse(in).at("artifact").get<std::string>());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

#define GRAPH_CASE_OR_SKIP(var, case_name)   \
  Case var = GraphCase(case_name);              \
  if (var.name.empty()) GTEST_SKIP() << "../shared/fixtures/graph not present"

}  // namespace

TEST(GraphFixtures, EveryExportRunsBitExact) {
  if (GraphFixturesDir().empty()) GTEST_SKIP() << "../shared/fixtures/graph not present";
  int ran = 0;
  for (const std::string& name : ListDir(GraphFixturesDir())) {
    Case c = GraphCase(name);
    if (c.name.empty()) continue;
    Model m = Model::Load(c.library);
    EXPECT_EQ(m.Info().interface, "graph") << name;
    ExpectNewExecutorMatches(c, m);
    ++ran;
  }
  EXPECT_GE(ran, 4);
}

TEST(GraphFixtures, ClassicTripleThroughLoadGraph) {
  GRAPH_CASE_OR_SKIP(c, "g_classic_llvm");
  Model m = Model::LoadGraph(c.library + "/mod.so", ReadFile(c.library + "/mod.json"), ReadFile(c.library + "/mod.params"));
  ASSERT_EQ(m.Inputs().size(), 2u);  // data and the param p0, as TVM counts them
  EXPECT_EQ(m.Inputs()[1].name, "p0");
  ASSERT_EQ(m.Info().params.size(), 1u);
  ExpectNewExecutorMatches(c, m);
}

TEST(GraphFixtures, ParamsAreNotPartOfAnExecutor) {
  GRAPH_CASE_OR_SKIP(c, "g_mobilenet_llvm");
  Model m = Model::Load(c.library);
  EXPECT_GT(m.ParamBytes(), size_t{16} << 20);
  EXPECT_LT(m.ArenaBytes(), m.ParamBytes());  // what an executor holds: its storage, not the weights
}

TEST(GraphFixtures, ExecutorsShareParamsAndCopyOnWrite) {
  GRAPH_CASE_OR_SKIP(c, "g_conv_llvm");
  Model m = Model::Load(c.library);
  Executor a = m.CreateExecutor(), b = m.CreateExecutor();
  // Overwriting a param in one executor leaves the model's copy, and so the other, as it was.
  size_t p = a.InputIndex("p0");
  NDArray zeros = NDArray::Empty(a.Input(p).shape, a.Input(p).dtype);
  a.SetInput(p, zeros.tensor());
  SetCaseInputs(c, b);
  b.Run();
  ExpectOutputsMatch(c, b);
  SetCaseInputs(c, a);
  a.Run();
  EXPECT_FALSE(BytesEqual(a.GetOutput(0), c.expected[0]));
  EXPECT_TRUE(BytesEqual(a.GetInput(p), zeros));
  // A third executor still starts from the model's params.
  ExpectNewExecutorMatches(c, m);
}

TEST(GraphFixtures, ZeroCopyInputAndOutput) {
  GRAPH_CASE_OR_SKIP(c, "g_conv_llvm");
  Executor ex = Model::Load(c.library).CreateExecutor();
  NDArray in = NDArray::Empty(c.inputs[0].Shape(), c.inputs[0].dtype());
  in.CopyFrom(c.inputs[0].tensor());
  NDArray out = NDArray::Empty(c.expected[0].Shape(), c.expected[0].dtype());
  ex.SetInputZeroCopy(0, in.tensor());
  ex.SetOutputZeroCopy(0, out.tensor());
  ex.Run();
  EXPECT_TRUE(BytesEqual(out, c.expected[0]));
  NDArray unaligned = NDArray::Empty({1, 16, 56, 56}, DLDataType{kDLFloat, 32, 1});
  DLTensor t = unaligned.tensor();
  t.byte_offset = 4;
  EXPECT_AOTRT_ERROR(ex.SetInputZeroCopy(0, t), ErrorCode::kInvalidArgument, {"input 0 ('data')", "aligned"});
}

// TVM's graph executor answers a name the graph does not take with -1 / None (its Python
// set_input(**params) relies on it); set_input of such a name stays an error naming the inputs.
TEST(GraphFixtures, UnknownInputNameIsMinusOneAndNoneAsInTvm) {
  GRAPH_CASE_OR_SKIP(c, "g_conv_llvm");
  Executor ex = Model::Load(c.library).CreateExecutor();
  Module m = ex.module();
  EXPECT_EQ(m.GetFunction("get_input_index").Call<int64_t>("no_such_input"), -1);
  EXPECT_EQ(m.GetFunction("get_input_index").Call<int64_t>("data"), 0);
  EXPECT_EQ(m.GetFunction("get_input")("no_such_input").type_code(), kTVMNullptr);
  EXPECT_TRUE(m.GetFunction("get_input")("data").As<NDArray>().defined());
  NDArray x = NDArray::Empty({3}, DLDataType{kDLFloat, 32, 1});
  EXPECT_AOTRT_ERROR(m.GetFunction("set_input")("no_such_input", x), ErrorCode::kNotFound,
                     {"Invalid input name", "no_such_input", "'data'"});
}

// Everything the executor holds is cut from the caller's memory (Allocations.* counts the heap);
// the caller hears when the memory is free again; a region one block short is refused naming the
// size it needs.
TEST(GraphFixtures, ExecutorInTheCallersArena) {
  GRAPH_CASE_OR_SKIP(c, "g_conv_llvm");
  Model m = Model::Load(c.library);
  size_t bytes = m.ArenaBytes();
  void* arena = std::aligned_alloc(64, bytes);
  int destroyed = 0;
  ExecutorOptions o;
  o.memory = ExecutorOptions::Arena{arena, bytes};
  o.on_destroyed = [](void* count) { ++*static_cast<int*>(count); };
  o.on_destroyed_data = &destroyed;
  {
    Executor ex = m.CreateExecutor(DLDevice{kDLCPU, 0}, o);
    SetCaseInputs(c, ex);
    ex.Run();
    ExpectOutputsMatch(c, ex);
    EXPECT_EQ(ex.GetOutput(0).data(), ex.GetOutput(0).data());
    auto at = reinterpret_cast<uintptr_t>(ex.GetOutput(0).data()), base = reinterpret_cast<uintptr_t>(arena);
    EXPECT_TRUE(at >= base && at < base + bytes) << "the output is not in the arena";
    OperatorProfileOptions one;  // operator by operator, each with the region's workspace
    one.runs = 1;
    EXPECT_EQ(ProfileOperators(ex, one).operators.size(), 4u);
    ExpectOutputsMatch(c, ex);
    EXPECT_EQ(destroyed, 0);
  }
  EXPECT_EQ(destroyed, 1);
  o.memory = ExecutorOptions::Arena{arena, bytes - 64};
  std::string needed = std::to_string(bytes);
  for (int i = static_cast<int>(needed.size()) - 3; i > 0; i -= 3) needed.insert(static_cast<size_t>(i), ",");
  EXPECT_AOTRT_ERROR(m.CreateExecutor(DLDevice{kDLCPU, 0}, o), ErrorCode::kInvalidArgument,
                     {"too small", "graph 'default'", "needs " + needed + " bytes"});
  EXPECT_EQ(destroyed, 1);  // a refused executor was never the caller's to hear about
  std::free(arena);
}

TEST(GraphFixtures, ExecutorsRunOnTwoThreads) {
  GRAPH_CASE_OR_SKIP(c, "g_conv_llvm");
  Model m = Model::Load(c.library);
  std::vector<std::thread> threads;
  std::vector<int> ok(2, 0);
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      Executor ex = m.CreateExecutor();
      SetCaseInputs(c, ex);
      for (int i = 0; i < 5; ++i) ex.Run();
      ok[t] = BytesEqual(ex.GetOutput(0), c.expected[0]);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1}));
}

TEST(GraphFixtures, ParamsThatDoNotFitTheGraphAreRefusedNamingBoth) {
  GRAPH_CASE_OR_SKIP(c, "g_classic_llvm");
  std::string lib = c.library + "/mod.so", json = ReadFile(c.library + "/mod.json");
  NDArray small = NDArray::Empty({3}, DLDataType{kDLFloat, 32, 1});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, json, SaveParams({{"p0", small}})), ErrorCode::kShapeMismatch,
                     {"'p0'", "[8, 4, 3, 3, 4, 4]", "[3]"});
  NDArray ints = NDArray::Empty({8, 4, 3, 3, 4, 4}, DLDataType{kDLInt, 32, 1});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, json, SaveParams({{"p0", ints}})), ErrorCode::kTypeMismatch,
                     {"'p0'", "float32", "int32"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, json, SaveParams({{"conv_weight", small}})), ErrorCode::kNotFound,
                     {"'conv_weight'", "valid names: 'data', 'p0'"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, json, "not a params file"), ErrorCode::kFormatError, {"params"});
}

TEST(GraphFixtures, GraphsTheLibraryCannotRunAreRefused) {
  GRAPH_CASE_OR_SKIP(c, "g_classic_llvm");
  std::string lib = c.library + "/mod.so", json = ReadFile(c.library + "/mod.json");
  auto edited = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(json);
    edit(j);
    return j.dump();
  };
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& j) {
                       j["nodes"][1]["attrs"]["func_name"] = "tvmgen_other_model_op";
                     })),
                     ErrorCode::kNotFound, {"node 1", "tvmgen_other_model_op", "does not define"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& j) { j["attrs"]["storage_id"][1][5] = 99; })),
                     ErrorCode::kFormatError, {"storage_id[5] = 99", "out of range"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& j) {
                       j["attrs"]["device_index"][1][2] = 2;
                       j["attrs"]["device_index"][1][3] = 4;
                     })),
                     ErrorCode::kNotImplemented, {"node entry 3", "device type 4", "device type 2", "not two"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& j) {  // one storage, two devices
                       j["attrs"]["storage_id"][1][4] = j["attrs"]["storage_id"][1][3];
                       j["attrs"]["device_index"][1][4] = 4;
                     })),
                     ErrorCode::kFormatError, {"storage", "holds entries on device types 1 and 4", "node entry 4"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& j) { j["heads"][0][0] = 9; })),
                     ErrorCode::kFormatError, {"heads[0]", "node 9"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& j) { j["attrs"]["shape"][1].erase(0); })),
                     ErrorCode::kFormatError, {"attrs.shape", "5 values for 6 node entries"});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, edited([](nlohmann::json& j) { j["nodes"][1].erase("inputs"); })),
                     ErrorCode::kFormatError, {"nodes[1]", "\"inputs\""});
  EXPECT_AOTRT_ERROR(Model::LoadGraph(lib, json.substr(0, json.size() / 2)), ErrorCode::kFormatError,
                     {"graph JSON of", "not valid JSON"});
}

// Issue 45 item 2: graphs that TVM's planner never writes, each refused at load naming the node or
// entry and what was expected.
TEST(GraphFixtures, MalformedGraphsAreRefusedNamingTheNode) {
  GRAPH_CASE_OR_SKIP(c, "g_classic_llvm");
  std::string lib = c.library + "/mod.so", json = ReadFile(c.library + "/mod.json");
  auto load = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(json);
    edit(j);
    return Model::LoadGraph(lib, j.dump(), ReadFile(c.library + "/mod.params"));
  };
  EXPECT_AOTRT_ERROR(load([](nlohmann::json& j) { j["nodes"][3]["inputs"][0] = {4, 0, 0}; }), ErrorCode::kFormatError,
                     {"graph JSON of", "an input of node 3", "names node 4", "a later node"});
  EXPECT_AOTRT_ERROR(load([](nlohmann::json& j) { j["nodes"][3]["inputs"][0] = {3, 0, 0}; }), ErrorCode::kFormatError,
                     {"an input of node 3", "itself"});
  EXPECT_AOTRT_ERROR(load([](nlohmann::json& j) { j["attrs"]["storage_id"][1][3] = 2; }), ErrorCode::kFormatError,
                     {"node 3", "storage 2", "input node 2 ('p0')"});
  EXPECT_AOTRT_ERROR(load([](nlohmann::json& j) { j["attrs"]["dltype"][1][5] = "float33"; }), ErrorCode::kFormatError,
                     {"attrs.dltype[5]", "'float33'", "float of 16, 32 or 64"});
  EXPECT_AOTRT_ERROR(load([](nlohmann::json& j) { j["attrs"]["shape"][1][5] = {1024, 1024, 1024, 1024}; }),
                     ErrorCode::kFormatError,
                     {"graph JSON of", "node entry 5 (output 0 of node 5 '", "4398046511104 bytes", "1 TiB"});
  // A __nop is a view of its input: one larger would read past it (a caller's zero-copy buffer).
  EXPECT_AOTRT_ERROR(load([](nlohmann::json& j) {
                       j["nodes"][1]["attrs"]["func_name"] = "__nop";
                       j["attrs"]["storage_id"][1][1] = 0;
                       j["attrs"]["shape"][1][1] = {1, 4, 56, 56, 8};
                     }),
                     ErrorCode::kFormatError, {"node 1", "__nop", "401408 bytes, larger than its input's 200704"});
}

// g_classic_llvm with its first node a __nop (a reshape of the input, as relay.build writes one)
// and `heads` as given.
static Model NopGraph(const Case& c, nlohmann::json heads) {
  nlohmann::json j = nlohmann::json::parse(ReadFile(c.library + "/mod.json"));
  j["nodes"][1]["attrs"]["func_name"] = "__nop";
  j["attrs"]["storage_id"][1][1] = 0;
  j["heads"] = heads;
  return Model::LoadGraph(c.library + "/mod.so", j.dump(), ReadFile(c.library + "/mod.params"));
}

TEST(GraphFixtures, AnOutputThatIsAnInputSeenThroughANopCannotBeZeroCopy) {
  GRAPH_CASE_OR_SKIP(c, "g_classic_llvm");
  Executor ex = NopGraph(c, {{1, 0, 0}}).CreateExecutor();
  NDArray out = NDArray::Empty(ex.Output(0).shape, ex.Output(0).dtype);
  EXPECT_AOTRT_ERROR(ex.SetOutputZeroCopy(0, out.tensor()), ErrorCode::kInvalidArgument,
                     {"output 0", "input 0 ('data')", "__nop", "set input 0 zero-copy instead"});
  SetCaseInputs(c, ex);  // the input stays where it was: the output shows it
  ex.Run();
  EXPECT_EQ(std::memcmp(ex.GetOutput(0).data(), c.inputs[0].data(), c.inputs[0].NumBytes()), 0);
}

TEST(GraphFixtures, AParamThatIsAnOutputIsNotSharedThroughGetOutput) {
  GRAPH_CASE_OR_SKIP(c, "g_classic_llvm");
  nlohmann::json j = nlohmann::json::parse(ReadFile(c.library + "/mod.json"));
  j["heads"] = {{5, 0, 0}, {2, 0, 0}};  // the conv weight p0 is output 1 too
  Model m = Model::LoadGraph(c.library + "/mod.so", j.dump(), ReadFile(c.library + "/mod.params"));
  Executor a = m.CreateExecutor(), b = m.CreateExecutor();
  NDArray weights = a.GetOutput(1);
  std::vector<char> before(static_cast<char*>(weights.data()), static_cast<char*>(weights.data()) + weights.NumBytes());
  std::memset(weights.data(), 0, weights.NumBytes());  // this executor's copy only
  EXPECT_EQ(std::memcmp(b.GetOutput(1).data(), before.data(), before.size()), 0);
  SetCaseInputs(c, b);
  b.Run();
  EXPECT_TRUE(BytesEqual(b.GetOutput(0), c.expected[0]));
}

TEST(GraphFixtures, ProfileTimesEveryNode) {
  GRAPH_CASE_OR_SKIP(c, "g_conv_llvm");
  Executor ex = Model::Load(c.library).CreateExecutor();
  SetCaseInputs(c, ex);
  OperatorProfileOptions o;
  o.runs = 3;
  OperatorProfile p = ProfileOperators(ex, o);
  EXPECT_TRUE(p.measured);
  EXPECT_EQ(p.runs, 3);
  ASSERT_EQ(p.operators.size(), 4u);  // the graph's four operator nodes, by cost
  auto first = std::find_if(p.operators.begin(), p.operators.end(),
                            [](const OperatorCost& op) { return op.symbol == "tvmgen_default_fused_layout_transform"; });
  ASSERT_NE(first, p.operators.end());
  EXPECT_EQ(first->shapes, "float32[1, 16, 56, 56], float32[1, 4, 56, 56, 4]");
  double sum = p.outside.mean_ms;
  for (size_t i = 0; i < p.operators.size(); ++i) {
    const OperatorCost& op = p.operators[i];
    EXPECT_EQ(op.samples, 3u);
    if (i > 0) EXPECT_GE(p.operators[i - 1].mean_ms, op.mean_ms);
    sum += op.mean_ms;
  }
  // The table: a shapes column, lines that fit a terminal, and how it was measured.
  std::string table = p.ToTable();
  EXPECT_NE(table.find("Argument shapes"), std::string::npos) << table;
  EXPECT_NE(table.find("every node timed on every run (measured, not sampled)"), std::string::npos) << table;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Graph ", 0) != 0) EXPECT_LE(line.size(), 100u) << line;
  }
  EXPECT_NE(p.ToJson().find("\"calls\": 3"), std::string::npos);
  EXPECT_EQ(p.ToJson().find("\"samples\""), std::string::npos);
  EXPECT_NEAR(sum, p.run_ms, p.run_ms * 1e-6 + 1e-9);
  ExpectOutputsMatch(c, ex);
}

// Long node names are cut in the middle (they differ at the end), shapes at the end; JSON keeps both.
TEST(GraphFixtures, ProfileTableFitsATerminal) {
  OperatorProfile p;
  p.measured = true;
  p.runs = 1;
  for (const char* suffix : {"add_nn_relu_3", "add_nn_relu_4"}) {
    OperatorCost c;
    c.name = c.symbol = std::string("tvmgen_default_fused_nn_contrib_conv2d_NCHWc_") + suffix;
    c.shapes = "float32[1, 128, 14, 14, 4], float32[32, 32, 3, 3, 4, 4], float32[1, 32, 1, 1, 4], float32[1, 32, 14, 14, 4]";
    p.operators.push_back(c);
  }
  std::string table = p.ToTable();
  EXPECT_NE(table.find("tvmgen_default_fus...NCHWc_add_nn_relu_3"), std::string::npos) << table;
  EXPECT_NE(table.find("tvmgen_default_fus...NCHWc_add_nn_relu_4"), std::string::npos) << table;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
  EXPECT_NE(p.ToJson().find(p.operators[0].shapes), std::string::npos);
}

TEST(GraphFixtures, TvmcPackageTarLoadsAsOneModel) {
  GRAPH_CASE_OR_SKIP(c, "g_classic_llvm");
  char tmpl[] = "/tmp/aotrt-tvmc-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl, tar = dir + "/model.tar";
  ASSERT_EQ(std::system(("tar -C '" + c.library + "' -cf '" + tar + "' mod.so mod.json mod.params").c_str()), 0);
  Model m = Model::Load(tar);
  EXPECT_EQ(m.name(), "default");
  ExpectNewExecutorMatches(c, m);
  // A package without its library names what is missing.
  std::string broken = dir + "/broken.tar";
  ASSERT_EQ(std::system(("tar -C '" + c.library + "' -cf '" + broken + "' mod.json mod.params").c_str()), 0);
  EXPECT_AOTRT_ERROR(Model::Load(broken), ErrorCode::kFormatError, {"broken.tar", "without mod.so"});
  // Without params, or with an empty params file, it would run on zeros: refused, as tvmc does.
  std::string no_params = dir + "/no_params.tar", empty = dir + "/empty.tar";
  ASSERT_EQ(std::system(("tar -C '" + c.library + "' -cf '" + no_params + "' mod.so mod.json").c_str()), 0);
  EXPECT_AOTRT_ERROR(Model::Load(no_params), ErrorCode::kFormatError, {"no_params.tar", "without mod.params"});
  ASSERT_EQ(std::system(("mkdir '" + dir + "/e' && cp '" + c.library + "/mod.so' '" + c.library + "/mod.json' '" + dir +
                         "/e/' && : > '" + dir + "/e/mod.params' && tar -C '" + dir + "/e' -cf '" + empty +
                         "' mod.so mod.json mod.params").c_str()),
            0);
  EXPECT_AOTRT_ERROR(Model::Load(empty), ErrorCode::kFormatError, {"empty.tar", "mod.params is empty"});
  EXPECT_AOTRT_ERROR(Model::Load(dir + "/e"), ErrorCode::kFormatError, {"mod.params is empty"});
  std::system(("rm -rf '" + dir + "'").c_str());
}

// Outputs 1 and 3 share the name 'reshape_nop' (as relay.build names a tuple's outputs), with other dtypes and
// shapes: a graph of __nop nodes over the classic library (outputs a, reshape(a), b, reshape(b)).
TEST(GraphFixtures, OutputsSharingANameAreToldApartByPosition) {
  GRAPH_CASE_OR_SKIP(c, "g_classic_llvm");
  const std::string nop = R"({"op": "tvm_op", "name": "reshape_nop", "attrs": {"num_outputs": "1", "num_inputs": "1",
      "flatten_data": "0", "func_name": "__nop"}, "inputs": [[)";
  const std::string json = R"({"nodes": [{"op": "null", "name": "a", "inputs": []}, {"op": "null", "name": "b", "inputs": []}, )" +
                           nop + "0, 0, 0]]}, " + nop + R"(1, 0, 0]]}], "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3, 4],
      "heads": [[0, 0, 0], [2, 0, 0], [1, 0, 0], [3, 0, 0]], "attrs": {"dltype": ["list_str", ["float32", "int8", "float32", "int8"]],
      "shape": ["list_shape", [[2, 2], [32], [4], [2, 16]]], "storage_id": ["list_int", [0, 1, 0, 1]],
      "device_index": ["list_int", [1, 1, 1, 1]]}})";
  Model m = Model::LoadGraph(c.library + "/mod.so", json, "");
  Executor ex = m.CreateExecutor();
  ASSERT_EQ(ex.NumOutputs(), 4u);
  EXPECT_EQ(ex.Output(1).name, "reshape_nop");
  EXPECT_EQ(ex.Output(3).name, "reshape_nop");
  EXPECT_EQ(DataTypeToString(ex.GetOutput(1).dtype()), "float32");
  EXPECT_EQ(ex.GetOutput(1).Shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(DataTypeToString(ex.GetOutput(3).dtype()), "int8");
  EXPECT_EQ(ex.GetOutput(3).Shape(), (std::vector<int64_t>{2, 16}));
  EXPECT_EQ(ex.OutputIndex("reshape_nop"), 1u);  // a shared name answers with its first output
  EXPECT_EQ(ex.OutputIndex("reshape_nop:3"), 3u);
}

TEST(GraphFixtures, ErrorsSayWhatToDo) {
  GRAPH_CASE_OR_SKIP(c, "g_classic_llvm");
  // GetFunction("default") on a classic mod.so: the null function says what the library is when called.
  PackedFunc f = Module::LoadFromFile(c.library + "/mod.so").GetFunction("default");
  EXPECT_FALSE(f.defined());
  EXPECT_AOTRT_ERROR(f(DLDevice{kDLCPU, 0}), ErrorCode::kNotFound,
                     {"calling a function a lookup did not find: module 'library' has no function 'default': the "
                      "library holds operators only, no model (no __tvm_dev_mblob): a graph export's library, which "
                      "runs with its graph JSON (aotrt::Model::LoadGraph"});
  // An AOT export given a graph JSON: it runs without one.
  EXPECT_AOTRT_ERROR(Model::LoadGraph(ModelPath("add_c"), ReadFile(c.library + "/mod.json"), ""), ErrorCode::kNotFound,
                     {"the graph JSON belongs to another library; this library is an AOT export (model 'default'), "
                      "which runs without a graph JSON: load it alone (Model::Load; aotrt run without --graph"});
  // A wrong input name: the data inputs, then the params.
  Executor ex = Model::LoadGraph(c.library + "/mod.so", ReadFile(c.library + "/mod.json"),
                                 ReadFile(c.library + "/mod.params")).CreateExecutor();
  EXPECT_AOTRT_ERROR(ex.InputIndex("datax"), ErrorCode::kNotFound, {"valid names: 'data'; params: 'p0'"});
}
