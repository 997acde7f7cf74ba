#include "frontend.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "flat_gathers.h"
#include "fmt/format.h"
#include "lower_internal.h"
#include "parser.h"
#include "tessera/ir/verifier.h"

namespace tessera::helion_py {

namespace {

bool HasDotOfWideOperands(const Function& function) {
  bool found = false;
  WalkStmts(function.body, [&](const Stmt& stmt) {
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op != OpKind::kDot) return;
        for (size_t i = 0; i < expr.operands.size() && i < 2; ++i) {
          const DType dtype = expr.operands[i]->type.dtype;
          if (dtype != DType::kBF16 && dtype != DType::kF16) found = true;
        }
      });
    });
  });
  return found;
}

// The last name of a callee spelled as a dotted name (`torch.matmul`:
// "matmul"), as DottedName would end, without building it; empty for any
// other callee (`x[0].matmul`).
std::string_view DottedNameTail(const Node& callee) {
  const Node* base = &callee;
  while (base->kind == NodeKind::kAttribute) base = base->children[0].get();
  return base->kind == NodeKind::kName ? std::string_view(callee.text)
                                       : std::string_view();
}

// A guess, before lowering, that the kernel's dots will be of wide
// operands: its source holds a matmul (`@`, `torch.matmul` and the like,
// `hl.dot`) and some tensor parameter has no bf16 / f16 `--arg` (an
// untyped tensor is f32, as in every shape-generic compile).
bool LikelyWideDots(const KernelDef& kernel, const PipelineInfo& pipeline) {
  bool matmul = false;
  WalkStmtNodes(kernel.body, [&](const Node& node) {
    if (node.kind == NodeKind::kBinary &&
        node.op == static_cast<uint8_t>(BinaryOp::kMatMul)) {
      matmul = true;
    } else if (!matmul && node.kind == NodeKind::kCall &&
               !node.children.empty() && node.children[0]) {
      const std::string_view last = DottedNameTail(*node.children[0]);
      for (const char* dot :
           {"matmul", "mm", "bmm", "addmm", "baddbmm", "dot"}) {
        if (last == dot) matmul = true;
      }
    }
  });
  if (!matmul) return false;
  auto spec = pipeline.kernels.find(kernel.name);
  if (spec == pipeline.kernels.end()) spec = pipeline.kernels.find("*");
  const auto half_arg = [&](const std::string& name) {
    if (spec == pipeline.kernels.end()) return false;
    const auto arg = spec->second.args.find(name);
    return arg != spec->second.args.end() &&
           (arg->second.rfind("bf16", 0) == 0 ||
            arg->second.rfind("f16", 0) == 0);
  };
  for (const Param& param : kernel.params) {
    const std::string annotation =
        param.annotation ? DottedName(*param.annotation) : "";
    const bool tensor = annotation == "Tensor" || annotation == "torch.Tensor";
    if (tensor && !half_arg(param.name)) return true;
  }
  return false;
}

// One kernel, its default blocks capped where `dot_default_block` asks
// (LowerPython): where its dots have wide operands and a default block is
// larger. A first lowering runs against a scratch engine, capped when
// LikelyWideDots guesses so: it is the answer when the guess was right (or
// the cap changed nothing) and nothing was reported; otherwise the kernel
// lowers again against `diagnostics`, so that each message is reported once.
// Either order gives the same module; a right guess saves a lowering.
std::optional<Function> LowerKernel(
    const KernelDef& kernel, const ParsedFile& parsed, const std::string& file,
    const PipelineInfo& pipeline, DiagnosticEngine& diagnostics,
    int64_t dot_default_block, bool exact_block_sizes, LoweringStats& stats) {
  ++stats.lowerings;
  if (dot_default_block <= 0) {
    KernelLowering lowering(kernel, parsed, file, pipeline, diagnostics);
    if (exact_block_sizes) lowering.RequireExactBlockSizes();
    return lowering.Run();
  }
  const bool capped_first = LikelyWideDots(kernel, pipeline);
  DiagnosticEngine scratch;
  KernelLowering first(kernel, parsed, file, pipeline, scratch);
  if (exact_block_sizes) first.RequireExactBlockSizes();
  if (capped_first) first.CapDefaultBlocks(dot_default_block);
  std::optional<Function> function = first.Run();
  const bool cap = function && HasDotOfWideOperands(*function) &&
                   first.DefaultBlockAbove(dot_default_block);
  const bool right =
      cap == capped_first || !first.DefaultBlockAbove(dot_default_block);
  if (right && scratch.diagnostics().empty()) return function;
  ++stats.lowerings;
  KernelLowering lowering(kernel, parsed, file, pipeline, diagnostics);
  if (exact_block_sizes) lowering.RequireExactBlockSizes();
  if (cap) lowering.CapDefaultBlocks(dot_default_block);
  return lowering.Run();
}

// `--arg NAME=...` (the pipeline's "*" entry) must name a parameter of some
// kernel being compiled: a misspelt name would otherwise leave that
// parameter untyped without a word.
void CheckArgNames(const std::vector<const KernelDef*>& kernels,
                   const PipelineInfo& pipeline, const std::string& file,
                   DiagnosticEngine& diagnostics) {
  const auto all = pipeline.kernels.find("*");
  if (kernels.empty() || all == pipeline.kernels.end()) return;
  // An --arg also sets a tunable (`hl.register_tunable("split_k", ...)`):
  // its name, where the source spells it as a string, is a name too.
  // A tunable named otherwise (a keyword, a variable) leaves the names
  // unknown before lowering: nothing is checked then.
  std::vector<std::string> params;
  bool unknowable = false;
  for (const KernelDef* kernel : kernels) {
    for (const Param& param : kernel->params) params.push_back(param.name);
    WalkStmtNodes(kernel->body, [&](const Node& node) {
      if (node.kind != NodeKind::kCall || node.children.empty() ||
          !node.children[0] ||
          DottedNameTail(*node.children[0]) != "register_tunable") {
        return;
      }
      if (node.children.size() < 2 || !node.children[1] ||
          node.children[1]->kind != NodeKind::kString) {
        unknowable = true;
        return;
      }
      params.push_back(node.children[1]->text);
    });
  }
  if (unknowable) return;
  for (const auto& [name, spelling] : all->second.args) {
    if (std::find(params.begin(), params.end(), name) != params.end()) {
      continue;
    }
    std::string message =
        kernels.size() == 1
            ? fmt::format("--arg {}: kernel '{}' has no parameter '{}'", name,
                          kernels[0]->name, name)
            : fmt::format(
                  "--arg {}: no kernel of the file has a parameter "
                  "'{}'",
                  name, name);
    const std::string closest = ClosestName(name, params);
    if (!closest.empty()) {
      message += fmt::format("; did you mean '{}'?", closest);
    }
    Diagnostic& d = diagnostics.Error(file, kernels[0]->loc, message);
    for (const KernelDef* kernel : kernels) {
      std::string list;
      for (const Param& param : kernel->params)
        list += (list.empty() ? "" : ", ") + param.name;
      DiagnosticEngine::AddNote(
          d, "", SourceLoc{},
          fmt::format("parameters of '{}': {}", kernel->name,
                      list.empty() ? "none" : list));
    }
  }
}

}  // namespace

absl::StatusOr<Module> LowerPython(std::string_view path, std::string_view text,
                                   const PipelineInfo& pipeline,
                                   DiagnosticEngine& diagnostics,
                                   int64_t dot_default_block,
                                   LoweringStats* stats,
                                   bool exact_block_sizes) {
  LoweringStats unused;
  std::string file(path);
  size_t errors_before = diagnostics.error_count();
  ParsedFile parsed = ParseFile(text, file, diagnostics);
  Module module;
  module.source_file = file;
  const std::vector<std::string>& selected = pipeline.selected_kernels;
  std::vector<const KernelDef*> compiled;
  for (const KernelDef& kernel : parsed.kernels) {
    if (selected.empty() || std::find(selected.begin(), selected.end(),
                                      kernel.name) != selected.end()) {
      compiled.push_back(&kernel);
    }
  }
  CheckArgNames(compiled, pipeline, file, diagnostics);
  for (const KernelDef* kernel : compiled) {
    std::optional<Function> function = LowerKernel(
        *kernel, parsed, file, pipeline, diagnostics, dot_default_block,
        exact_block_sizes, stats ? *stats : unused);
    if (!function) continue;
    RewriteFlatGathers(*function);
    module.functions.push_back(*std::move(function));
  }
  if (diagnostics.error_count() != errors_before) {
    return absl::InvalidArgumentError("the kernel file has errors");
  }
  if (module.functions.empty()) {
    // Helion files often hold only helpers or drivers of kernels defined
    // elsewhere: nothing to compile is not an error (the driver decides,
    // `--require-kernel` makes it one).
    diagnostics.Report(Severity::kNote, file, SourceLoc{},
                       "no @helion.kernel function found; nothing to compile");
  }
  return module;
}

absl::StatusOr<Module> CompilePython(std::string_view path,
                                     std::string_view text,
                                     const PipelineInfo& pipeline,
                                     DiagnosticEngine& diagnostics) {
  absl::StatusOr<Module> module =
      LowerPython(path, text, pipeline, diagnostics);
  if (!module.ok() || module->functions.empty()) return module;
  if (absl::Status status = Verify(*module, diagnostics); !status.ok()) {
    return status;
  }
  return module;
}

namespace {

class HelionFrontend : public Frontend {
 public:
  absl::StatusOr<Module> Parse(std::string_view path, std::string_view text,
                               FrontendContext& ctx) override {
    // The pass manager verifies its input (verify-each, on by default), so
    // the driver's path does not verify the same module twice.
    return LowerPython(path, text, ctx.pipeline(), ctx.diagnostics(),
                       ctx.options().GetInt("dot_default_block", 0), nullptr,
                       ctx.options().GetBool("exact_block_sizes", true));
  }
};

}  // namespace

FrontendInfo HelionFrontendInfo() {
  FrontendInfo info;
  info.name = "helion-py";
  info.description =
      "Helion-syntax Python kernels (@helion.kernel functions) to structured "
      "Tessera IR";
  info.extensions = {".py"};
  info.create = [] { return std::make_unique<HelionFrontend>(); };
  info.options.push_back(OptionSpec{
      "dot_default_block",
      OptionType::kInt,
      int64_t{0},
      "caps the default blocks (tile dims without block_size=, "
      "helion.Config or config block_sizes) of kernels with a dot whose "
      "operands are not bf16/f16 (f32 FMA dots, operands converted to fp8), "
      "which Triton keeps in registers; 0: no cap",
      {}});
  info.options.push_back(OptionSpec{
      "exact_block_sizes",
      OptionType::kBool,
      true,
      "block_sizes given by the pipeline ([kernels.NAME] of a config) must "
      "have one size per block dim of the kernel (hl.tile dims without "
      "block_size=, hl.register_block_size); false: missing ones take their "
      "defaults and extra ones are ignored (tessera tune probes this way)",
      {}});
  return info;
}

}  // namespace tessera::helion_py
