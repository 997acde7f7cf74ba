// PassIndexRefsTwice (backends/pallas_tpu/passes/smem_copies.h): an index ref
// read both row by row (a scatter's rows) and as a vector block is passed
// twice, and the module the TPU backend emits reads each copy its own way.
#include "passes/smem_copies.h"

#include <gtest/gtest.h>

#include <string>

#include "module_emitter.h"
#include "tessera/ir/text.h"
#include "test_inputs.h"

namespace tessera::pallas {
namespace {

// scaled_segments.tir: `ids = segment_ids[tile_n]` scales the values and
// gives the rows of `hl.atomic_add(out, [ids, tile_f], vals)`.
Module ReadScaledSegments() {
  DiagnosticEngine diagnostics;
  absl::StatusOr<Module> module = ParseModule(
      ReadInput("scaled_segments.tir"), "scaled_segments.tir", diagnostics);
  EXPECT_TRUE(module.ok()) << diagnostics.RenderAll();
  return std::move(*module);
}

const Stmt* FindStmt(const Block& block, StmtKind kind) {
  const Stmt* found = nullptr;
  WalkStmts(block, [&](const Stmt& stmt) {
    if (stmt.kind == kind && found == nullptr) found = &stmt;
  });
  return found;
}

TEST(SmemCopies, PassesARefReadBothWaysTwice) {
  Module twice_module = ReadScaledSegments();
  ASSERT_TRUE(PassIndexRefsTwice(
      twice_module, *twice_module.FindFunction("scaled_segments")));
  const Module* twice = &twice_module;
  const Function& device = *twice->FindFunction("scaled_segments_device");
  ASSERT_EQ(device.params.size(), 6u);
  EXPECT_EQ(device.params.back().name, "segment_ids_smem");
  EXPECT_EQ(TypeToString(device.params.back().type), "ref<i32[256]>");
  const Stmt* launch =
      FindStmt(twice->FindFunction("scaled_segments")->body, StmtKind::kLaunch);
  ASSERT_NE(launch, nullptr);
  ASSERT_EQ(launch->operands.size(), 4u);
  EXPECT_EQ(launch->operands.back()->name, "segment_ids");
  // The scatter's rows read the copy; the block read keeps the original.
  const Stmt* atomic = FindStmt(device.body, StmtKind::kAtomic);
  ASSERT_NE(atomic, nullptr);
  const Expr& rows = *atomic->indices[0].expr;
  ASSERT_EQ(rows.op, OpKind::kLoad);
  EXPECT_EQ(rows.operands[0]->name, "segment_ids_smem");
  EXPECT_EQ(rows.indices[0].kind, IndexKind::kTile);
  bool block_read = false;
  WalkStmts(device.body, [&](const Stmt& stmt) {
    if (stmt.kind == StmtKind::kAssign && !stmt.results.empty() &&
        stmt.results[0].name == "ids") {
      block_read = stmt.value->operands[0]->name == "segment_ids";
    }
  });
  EXPECT_TRUE(block_read);
  // Once passed twice, nothing is left to split.
  EXPECT_FALSE(PassIndexRefsTwice(
      twice_module, *twice_module.FindFunction("scaled_segments")));
}

TEST(SmemCopies, LeavesRefsReadOneWayAlone) {
  Module module = ReadScaledSegments();
  // Without the block read (vals = data[...] only), segment_ids is read
  // only row by row: plain scalar prefetch, no copy.
  Function& device = *module.FindFunction("scaled_segments_device");
  WalkStmts(device.body, [&](Stmt& stmt) {
    if (stmt.kind == StmtKind::kAssign && !stmt.results.empty() &&
        stmt.results[0].name == "vals") {
      stmt.value = CloneExpr(*stmt.value->operands[0]);
    }
  });
  EXPECT_FALSE(
      PassIndexRefsTwice(module, *module.FindFunction("scaled_segments")));
}

TEST(SmemCopies, EmitsAScalarPrefetchCopyAndAVmemBlock) {
  Module module = ReadScaledSegments();
  ASSERT_TRUE(RunTpuLoweringPasses(module));
  DiagnosticEngine diagnostics;
  ModuleOptions options;
  options.launcher = Launcher::kUnroll;
  options.tpu = *TpuGenerationByName("v6e");
  auto file = EmitKernelModule(module, *module.FindFunction("scaled_segments"),
                               options, diagnostics);
  ASSERT_TRUE(file.ok()) << diagnostics.RenderAll();
  const std::string& code = file->contents;
  EXPECT_NE(code.find("num_scalar_prefetch=1,"), std::string::npos) << code;
  EXPECT_NE(code.find("def _scaled_segments_kernel(segment_ids_smem, "
                      "segment_ids, data,"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("ids = segment_ids[0, :]"), std::string::npos) << code;
  EXPECT_NE(code.find("segment_ids_smem[jnp.minimum(tile_n * 128 + row"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find(")(_as_int32(segment_ids, \"segment_ids_smem\"), "
                      "segment_ids_row, data,"),
            std::string::npos)
      << code;
}

}  // namespace
}  // namespace tessera::pallas
