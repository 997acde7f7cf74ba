// In-process tests of the `ssa` and `outline` passes.
//
// Every valid IR-file input of tests/passes/ir and every example kernel
// (examples/*.py through the frontend) goes through the same checks:
// ssa verifies and is idempotent (structurally and textually), versions are
// unique Python identifiers, outline verifies with no free variables, and
// ssa after outline changes nothing. Targeted tests then check the
// diagnostics and the shape of the outlined functions.
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "outline.h"
#include "pass_test_util.h"
#include "ssa.h"
#include "tessera/ir/text.h"
#include "tessera/ir/verifier.h"

namespace tessera {
namespace {

using pass_testing::RunPass;
using pass_testing::RunPipeline;

// ---------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------

struct Input {
  std::string label;  // gtest-friendly name
  std::string path;
  bool is_example;  // a .py example (IR from the frontend) or a .tir file
};
void PrintTo(const Input& input, std::ostream* os) { *os << input.path; }

std::string Label(const std::string& path, std::string_view prefix) {
  std::string stem = path.substr(path.find_last_of('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  std::string label(prefix);
  for (char c : stem)
    label += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return label;
}

// IR-file inputs that are expected to compile (their .expected file does not
// start with an `# EXIT:` directive), and every example kernel.
std::vector<Input> AllInputs() {
  std::vector<Input> inputs;
  for (const std::string& path :
       pass_testing::ListFiles(TESSERA_PASSES_IR_DIR, ".tir")) {
    const std::string expected =
        pass_testing::ReadFile(path.substr(0, path.size() - 4) + ".expected");
    if (expected.rfind("# EXIT:", 0) == 0) continue;
    inputs.push_back({Label(path, "tir_"), path, false});
  }
  for (const std::string& path :
       pass_testing::ListFiles(TESSERA_EXAMPLES_DIR, ".py")) {
    if (path.ends_with("/references.py") || path.ends_with("/__init__.py")) {
      continue;
    }
    inputs.push_back({Label(path, "example_"), path, true});
  }
  return inputs;
}

// The IR text of an input (cached: examples run the frontend once).
const std::string& InputText(const Input& input) {
  static std::map<std::string, std::string> cache;
  static std::map<std::string, std::string> frontend_errors;
  auto it = cache.find(input.path);
  if (it != cache.end()) {
    EXPECT_FALSE(frontend_errors.count(input.path))
        << frontend_errors[input.path];
    return it->second;
  }
  std::string text;
  if (input.is_example) {
    absl::StatusOr<std::string> ir =
        pass_testing::FrontendIR(TESSERA_BINARY, input.path);
    text = ir.ok() ? *ir : std::string();
    if (!ir.ok())
      frontend_errors[input.path] = std::string(ir.status().message());
  } else {
    text = pass_testing::ReadFile(input.path);
  }
  EXPECT_FALSE(frontend_errors.count(input.path))
      << frontend_errors[input.path];
  return cache.emplace(input.path, std::move(text)).first->second;
}

Module Parse(const std::string& text, const std::string& name) {
  DiagnosticEngine diagnostics;
  absl::StatusOr<Module> module = ParseModule(text, name, diagnostics);
  EXPECT_TRUE(module.ok()) << diagnostics.RenderAll();
  return module.ok() ? std::move(*module) : Module{};
}

Module ParseInput(const Input& input) {
  const std::string& text = InputText(input);
  // An example whose frontend run failed must fail every test using it,
  // not pass vacuously on an empty module.
  EXPECT_FALSE(text.empty()) << "no IR for " << input.path;
  Module module = Parse(text, input.path);
  EXPECT_FALSE(module.functions.empty()) << "no function in " << input.path;
  return module;
}

void ExpectVerifies(const Module& module, const std::string& what) {
  DiagnosticEngine diagnostics;
  absl::Status status = Verify(module, diagnostics, module.properties);
  EXPECT_TRUE(status.ok()) << what << ":\n"
                           << diagnostics.RenderAll() << "\n"
                           << PrintModule(module);
}

Module AfterPipeline(const Input& input,
                     const std::vector<std::string>& names) {
  Module module = ParseInput(input);
  DiagnosticEngine diagnostics;
  absl::Status status = RunPipeline(names, module, diagnostics);
  EXPECT_TRUE(status.ok()) << status << "\n" << diagnostics.RenderAll();
  return module;
}

class EveryInput : public ::testing::TestWithParam<Input> {};

// ssa(ssa(x)) == ssa(x): structurally, textually, names included, and the
// second run reports no change.
TEST_P(EveryInput, SsaIsIdempotent) {
  Module once = AfterPipeline(GetParam(), {"ssa"});
  Module twice = CloneModule(once);
  DiagnosticEngine diagnostics;
  absl::StatusOr<bool> changed = RunPass("ssa", twice, diagnostics);
  ASSERT_TRUE(changed.ok()) << diagnostics.RenderAll();
  EXPECT_FALSE(*changed);
  EXPECT_TRUE(StructurallyEqual(once, twice, /*compare_locations=*/true))
      << FirstDifference(once, twice);
  EXPECT_EQ(PrintModule(once), PrintModule(twice));
}

// The SSA output verifies with the kSSA property, and every defined name is
// unique in its function and a valid Python identifier.
TEST_P(EveryInput, SsaVerifiesWithUniqueIdentifiers) {
  Module module = AfterPipeline(GetParam(), {"ssa"});
  ExpectVerifies(module, "after ssa");
  for (const Function& function : module.functions) {
    EXPECT_EQ(pass_testing::NameProblems(function), std::vector<std::string>{});
  }
}

// The SSA output survives print -> parse unchanged.
TEST_P(EveryInput, SsaOutputRoundTrips) {
  Module module = AfterPipeline(GetParam(), {"ssa", "outline"});
  const std::string printed = PrintModule(module);
  Module reparsed = Parse(printed, "roundtrip.tir");
  EXPECT_TRUE(StructurallyEqual(module, reparsed))
      << FirstDifference(module, reparsed);
  EXPECT_EQ(PrintModule(reparsed), printed);
}

// Outline's output verifies (kSSA + kOutlined: no kernels, one launch per
// host, no free variables even inside types) and every kernel became a
// host + device pair.
TEST_P(EveryInput, OutlineVerifiesWithoutFreeVariables) {
  Module input = ParseInput(GetParam());
  size_t kernels = 0;
  for (const Function& function : input.functions) {
    kernels += function.kind == FunctionKind::kKernel;
  }
  Module module = AfterPipeline(GetParam(), {"ssa", "outline"});
  ExpectVerifies(module, "after ssa, outline");
  DiagnosticEngine diagnostics;
  EXPECT_TRUE(VerifyProperty(module, kOutlinedProperty, diagnostics).ok())
      << diagnostics.RenderAll();
  EXPECT_EQ(module.functions.size(), 2 * kernels);
  for (const Function& function : module.functions) {
    EXPECT_NE(function.kind, FunctionKind::kKernel) << function.name;
    EXPECT_EQ(pass_testing::NameProblems(function), std::vector<std::string>{});
    if (function.kind != FunctionKind::kDevice) continue;
    const std::string* kernel = GetAttr<std::string>(function.attrs, "kernel");
    ASSERT_NE(kernel, nullptr) << function.name;
    EXPECT_EQ(function.name, *kernel + "_device");
  }
}

// Pipeline `ssa, outline, ssa` equals `ssa, outline`: the last ssa changes
// nothing.
TEST_P(EveryInput, SsaAfterOutlineChangesNothing) {
  Module outlined = AfterPipeline(GetParam(), {"ssa", "outline"});
  Module again = CloneModule(outlined);
  DiagnosticEngine diagnostics;
  absl::StatusOr<bool> changed = RunPass("ssa", again, diagnostics);
  ASSERT_TRUE(changed.ok()) << diagnostics.RenderAll();
  EXPECT_FALSE(*changed);
  EXPECT_TRUE(StructurallyEqual(outlined, again, true))
      << FirstDifference(outlined, again);
  EXPECT_EQ(PrintModule(outlined), PrintModule(again));
}

INSTANTIATE_TEST_SUITE_P(Passes, EveryInput, ::testing::ValuesIn(AllInputs()),
                         [](const ::testing::TestParamInfo<Input>& info) {
                           return info.param.label;
                         });

// ---------------------------------------------------------------------------
// Targeted tests
// ---------------------------------------------------------------------------

Module ParseTir(const std::string& file_name) {
  const std::string path = std::string(TESSERA_PASSES_IR_DIR) + "/" + file_name;
  return Parse(pass_testing::ReadFile(path), file_name);
}

const Stmt* FindStmt(const Block& block,
                     const std::function<bool(const Stmt&)>& pred) {
  const Stmt* found = nullptr;
  WalkStmts(block, [&](const Stmt& stmt) {
    if (found == nullptr && pred(stmt)) found = &stmt;
  });
  return found;
}

struct Failure {
  std::string rendered;
  std::vector<Diagnostic> diagnostics;
};

Failure ExpectSsaFails(Module& module) {
  DiagnosticEngine diagnostics;
  absl::StatusOr<bool> result = ConvertToSSA(module, diagnostics);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  return {diagnostics.RenderAll(), diagnostics.diagnostics()};
}

TEST(Ssa, ValueDefinedOnlyInsideLoopAndUsedAfterIsAnError) {
  Module module = ParseTir("ssa_escape_undefined.tir");
  Failure failure = ExpectSsaFails(module);
  ASSERT_EQ(failure.diagnostics.size(), 1u) << failure.rendered;
  const Diagnostic& error = failure.diagnostics[0];
  EXPECT_EQ(error.severity, Severity::kError);
  EXPECT_NE(error.message.find("'last' is assigned inside this loop and used "
                               "after it, but has no value before the loop"),
            std::string::npos)
      << error.message;
  EXPECT_EQ(error.loc.line, 10u);  // the range loop
  EXPECT_EQ(error.loc.col, 5u);
  ASSERT_EQ(error.notes.size(), 1u);
  EXPECT_EQ(error.notes[0].loc.line, 11u);  // the assignment inside it
}

// A loop body reading a value before assigning it, with no value before
// the loop: the read is reported (once), not the loops around it.
TEST(Ssa, ReadBeforeAssignmentInLoopIsAnError) {
  Module module = Parse(R"(module "read_first.tir"
func kernel @k(x: ref<f32[m, 128]>) -> (ref<f32[m, 128]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for tile_m: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    for i: i64 in range(0:4:1) @4:5 {
      store x[tile_m, :] = acc: f32[64, 128] @5:7
      acc: f32[64, 128] = load(x)[tile_m, :] @6:7
    }
  }
  return x @7:3
}
)",
                        "read_first.tir");
  Failure failure = ExpectSsaFails(module);
  ASSERT_EQ(failure.diagnostics.size(), 1u) << failure.rendered;
  EXPECT_EQ(failure.diagnostics[0].message,
            "'acc' is used before it is assigned");
  EXPECT_EQ(failure.diagnostics[0].loc.line, 5u);
  EXPECT_EQ(failure.diagnostics[0].loc.col, 7u);
}

TEST(Ssa, AssignedInOneBranchOnlyAndUsedAfterIsAnError) {
  Module module = Parse(R"(module "one_branch.tir"
func kernel @k(x: ref<f32[m, 128]>) -> (ref<f32[m, 128]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for tile_m: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    if true @4:5 {
      v: f32[64, 128] = load(x)[tile_m, :] @5:7
    } else {
    }
    store x[tile_m, :] = v @6:5
  }
  return x @7:3
}
)",
                        "one_branch.tir");
  Failure failure = ExpectSsaFails(module);
  ASSERT_EQ(failure.diagnostics.size(), 1u) << failure.rendered;
  EXPECT_NE(failure.diagnostics[0].message.find(
                "'v' is assigned in only one branch of this 'if'"),
            std::string::npos)
      << failure.rendered;
  EXPECT_EQ(failure.diagnostics[0].loc.line, 4u);
}

TEST(Ssa, CarriedValueChangingTypeIsAnError) {
  Module module = Parse(R"(module "type_change.tir"
func kernel @k(x: ref<f32[m, 128]>) -> (ref<f32[m, 128]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for tile_m: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    acc: f32[64, 128] = full() {shape = dims[64, 128], dtype = f32, value = 0.0} @4:5
    for i: i64 in range(0:4:1) @5:5 {
      acc: bf16[64, 128] = cast(acc) {dtype = bf16} @6:7
    }
    store x[tile_m, :] = acc @7:5
  }
  return x @8:3
}
)",
                        "type_change.tir");
  Failure failure = ExpectSsaFails(module);
  ASSERT_EQ(failure.diagnostics.size(), 1u) << failure.rendered;
  EXPECT_NE(failure.diagnostics[0].message.find(
                "loop-carried value 'acc' has type f32[64, 128] before the "
                "loop but bf16[64, 128]"),
            std::string::npos)
      << failure.rendered;
}

// The carried value's type names `w`, which is reassigned (-> w_1): the
// iter_arg, the loop result and the range bound all follow.
TEST(Ssa, SymbolsInTypesAreRenamedWithTheirValue) {
  Module module = ParseTir("ssa_dynamic_shape.tir");
  DiagnosticEngine diagnostics;
  ASSERT_TRUE(ConvertToSSA(module, diagnostics).ok())
      << diagnostics.RenderAll();
  const Stmt* loop = FindStmt(module.functions[0].body, [](const Stmt& stmt) {
    return stmt.kind == StmtKind::kRangeLoop;
  });
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->iter_args.size(), 1u);
  const Type expected =
      Type::Tensor(DType::kF32, {Dim::Static(64), Dim::Symbol("w_1")});
  EXPECT_EQ(loop->iter_args[0].type, expected)
      << TypeToString(loop->iter_args[0].type);
  ASSERT_EQ(loop->results.size(), 1u);
  EXPECT_EQ(loop->results[0].type, expected);
  ASSERT_EQ(loop->dims.size(), 1u);
  EXPECT_EQ(loop->dims[0].end->name, "w_1");
  // No reference to the stale `w` is left after its reassignment.
  const std::string printed = PrintModule(module);
  const size_t reassignment = printed.find("\n", printed.find("w_1: i64 ="));
  ASSERT_NE(reassignment, std::string::npos) << printed;
  for (const char* stale : {"[64, w]", ", w]", "(w,", ":w:"}) {
    EXPECT_EQ(printed.find(stale, reassignment), std::string::npos)
        << stale << " in\n"
        << printed;
  }
}

TEST(Ssa, VersionsSkipEveryExistingName) {
  Module module = ParseTir("ssa_name_collision.tir");
  DiagnosticEngine diagnostics;
  ASSERT_TRUE(ConvertToSSA(module, diagnostics).ok())
      << diagnostics.RenderAll();
  EXPECT_EQ(pass_testing::NameProblems(module.functions[0]),
            std::vector<std::string>{});
  std::vector<std::string> defined;
  WalkStmts(module.functions[0].body, [&](const Stmt& stmt) {
    for (const Value& value : stmt.results) defined.push_back(value.name);
    for (const Value& value : stmt.iter_args) defined.push_back(value.name);
  });
  // The user's own names are defined once each, by the user's statements.
  EXPECT_EQ(std::count(defined.begin(), defined.end(), "acc_1"), 1);
  EXPECT_EQ(std::count(defined.begin(), defined.end(), "acc_3"), 1);
  // Versions of `acc` and `acc_1` exist and do not reuse those names.
  EXPECT_NE(std::find(defined.begin(), defined.end(), "acc_2"), defined.end());
  EXPECT_NE(std::find(defined.begin(), defined.end(), "acc_1_1"),
            defined.end());
}

TEST(Ssa, SsaInputKeepsItsNames) {
  // Already SSA, with names that look like versions: nothing changes.
  const std::string text = R"(module "ssa_input.tir"
func kernel @k(x: ref<f32[m, 128]>) -> (ref<f32[m, 128]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for tile_m: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    acc: f32[64, 128] = full() {shape = dims[64, 128], dtype = f32, value = 0.0} @4:5
    acc_7: f32[64, 128] = for i: i64 in range(0:4:1) iter(acc_1: f32[64, 128] = acc) @5:5 {
      acc_2: f32[64, 128] = add(acc_1, load(x)[tile_m, :]) @6:7
      yield acc_2
    }
    store x[tile_m, :] = acc_7 @7:5
  }
  return x @8:3
}
)";
  Module module = Parse(text, "ssa_input.tir");
  Module original = CloneModule(module);
  DiagnosticEngine diagnostics;
  absl::StatusOr<bool> changed = ConvertToSSA(module, diagnostics);
  ASSERT_TRUE(changed.ok()) << diagnostics.RenderAll();
  EXPECT_FALSE(*changed);
  EXPECT_TRUE(StructurallyEqual(module, original, true))
      << FirstDifference(module, original);
}

TEST(Outline, AttentionSplitsIntoHostAndDevice) {
  Module module = ParseTir("outline_attention.tir");
  DiagnosticEngine diagnostics;
  ASSERT_TRUE(RunPipeline({"ssa", "outline"}, module, diagnostics).ok())
      << diagnostics.RenderAll();
  ASSERT_EQ(module.functions.size(), 2u);
  const Function& host = module.functions[0];
  const Function& device = module.functions[1];
  EXPECT_EQ(host.kind, FunctionKind::kHost);
  EXPECT_EQ(host.name, "attention");
  EXPECT_EQ(device.kind, FunctionKind::kDevice);
  EXPECT_EQ(device.name, "attention_device");

  const Stmt* launch = FindStmt(host.body, [](const Stmt& stmt) {
    return stmt.kind == StmtKind::kLaunch;
  });
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(*GetAttr<std::string>(launch->attrs, "callee"), "attention_device");
  ASSERT_EQ(launch->dims.size(), 2u);
  EXPECT_EQ(launch->dims[0].end->name, "bh");
  EXPECT_EQ(launch->dims[1].end->name, "m");

  // Tiles first (the grid loop's vars), then live-ins in order of first
  // use; the shape symbol `d` of the loaded blocks is an explicit param.
  std::vector<std::string> params;
  for (const Value& param : device.params) params.push_back(param.name);
  const std::vector<std::string> expected = {
      "tile_b",   "tile_m", "d",   "q_view", "n", "k_view",
      "qk_scale", "v_view", "out", "bh",     "m"};
  EXPECT_EQ(params, expected);
  ASSERT_EQ(launch->operands.size(), device.params.size() - 2);
  for (size_t i = 0; i < launch->operands.size(); ++i) {
    EXPECT_EQ(launch->operands[i]->name, device.params[i + 2].name);
  }
  EXPECT_EQ(device.body.stmts.back().kind, StmtKind::kReturn);
  EXPECT_TRUE(device.result_types.empty());
}

TEST(Outline, StoreTwoLoopsDeepFeedsTheReturnedOutput) {
  Module module = ParseTir("outline_store_two_deep.tir");
  DiagnosticEngine diagnostics;
  ASSERT_TRUE(RunPipeline({"ssa", "outline"}, module, diagnostics).ok())
      << diagnostics.RenderAll();
  ExpectVerifies(module, "store two deep");
  const Function& host = module.functions[0];
  const Function& device = module.functions[1];
  // The host returns the ref the device stores into; the device gets it as
  // a parameter and returns nothing (stores are not values).
  const Stmt& ret = host.body.stmts.back();
  ASSERT_EQ(ret.kind, StmtKind::kReturn);
  ASSERT_EQ(ret.operands.size(), 1u);
  EXPECT_EQ(ret.operands[0]->name, "out");
  bool out_is_param = false;
  for (const Value& param : device.params) out_is_param |= param.name == "out";
  EXPECT_TRUE(out_is_param);
  const Stmt* store = FindStmt(device.body, [](const Stmt& stmt) {
    return stmt.kind == StmtKind::kStore;
  });
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->target->name, "out");
  EXPECT_TRUE(device.result_types.empty());
}

TEST(Outline, GridLoopResultsBecomeLaunchResults) {
  // A value carried across the grid loop: the device function takes its
  // initial value and returns the final one; the launch has the result.
  Module module = Parse(R"(module "grid_results.tir"
func kernel @k(x: ref<f32[m, 128]>) -> (ref<f32[m, 128]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  count: i64 = 0 @3:3
  for tile_m: tile<64> in tile(0:m:64) {grid = true} @4:3 {
    count: i64 = add(count, 1) @5:5
  }
  total: i64 = add(count, 1) @6:3
  return x @7:3
}
)",
                        "grid_results.tir");
  DiagnosticEngine diagnostics;
  ASSERT_TRUE(RunPipeline({"ssa", "outline"}, module, diagnostics).ok())
      << diagnostics.RenderAll();
  ExpectVerifies(module, "grid loop results");
  const Function& device = module.functions[1];
  ASSERT_EQ(device.result_types.size(), 1u);
  EXPECT_EQ(device.result_types[0], Type::Scalar(DType::kI64));
  const Stmt* launch = FindStmt(module.functions[0].body, [](const Stmt& s) {
    return s.kind == StmtKind::kLaunch;
  });
  ASSERT_NE(launch, nullptr);
  ASSERT_EQ(launch->results.size(), 1u);
  ASSERT_EQ(device.body.stmts.back().kind, StmtKind::kReturn);
  EXPECT_EQ(device.body.stmts.back().operands.size(), 1u);
}

TEST(Outline, KernelWithoutGridLoopIsAnError) {
  Module module = Parse(R"(module "no_grid.tir"
func kernel @k(x: ref<f32[m, 128]>) -> (ref<f32[m, 128]>) @1:1 {
  return x @2:3
}
)",
                        "no_grid.tir");
  module.properties.Insert(kSsaProperty);
  DiagnosticEngine diagnostics;
  absl::StatusOr<bool> result = OutlineKernels(module, diagnostics);
  EXPECT_FALSE(result.ok());
  ASSERT_EQ(diagnostics.diagnostics().size(), 1u);
  EXPECT_NE(diagnostics.diagnostics()[0].message.find("has no grid loop"),
            std::string::npos);
  EXPECT_EQ(diagnostics.diagnostics()[0].loc.line, 1u);
}

TEST(Outline, TwoGridLoopsAreAnError) {
  Module module = Parse(R"(module "two_grids.tir"
func kernel @k(x: ref<f32[m, 128]>) -> (ref<f32[m, 128]>) @1:1 {
  m: i64 = size(x) {dim = 0} @2:3
  for tile_m: tile<64> in tile(0:m:64) {grid = true} @3:3 {
    store x[tile_m, :] = load(x)[tile_m, :] @4:5
  }
  for tile_r: tile<64> in tile(0:m:64) {grid = true} @5:3 {
    store x[tile_r, :] = load(x)[tile_r, :] @6:5
  }
  return x @7:3
}
)",
                        "two_grids.tir");
  DiagnosticEngine diagnostics;
  absl::StatusOr<bool> result = OutlineKernels(module, diagnostics);
  EXPECT_FALSE(result.ok());
  ASSERT_EQ(diagnostics.diagnostics().size(), 1u);
  EXPECT_NE(diagnostics.diagnostics()[0].message.find("has 2 grid loops"),
            std::string::npos);
  EXPECT_EQ(diagnostics.diagnostics()[0].loc.line, 5u);
}

}  // namespace
}  // namespace tessera
