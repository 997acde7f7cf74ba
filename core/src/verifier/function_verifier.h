// Verifies one function: statement structure, types and shapes (against
// InferType), and that every use -- of a value or of a symbol inside a type
// -- is dominated by a definition. In SSA mode it also checks that each name
// is defined once and that nothing defined in a region is used outside it.
//
// Linear in the size of the function: one walk over the body with a
// ScopedNames table (one hash lookup per use, one insertion per
// definition). Only error messages ever scan the function again.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "tessera/ir/ir.h"
#include "verifier/module_index.h"
#include "verifier/reporter.h"
#include "verifier/scoped_names.h"

namespace tessera::verifier {

class FunctionVerifier {
 public:
  // `scope` is empty, made with keep_out_of_scope == `ssa`; it is shared
  // across the functions of a module so that its tables are not regrown
  // for each one.
  FunctionVerifier(const Function& function, bool ssa, const ModuleIndex& index,
                   Reporter& reporter, ScopedNames& scope)
      : function_(function),
        ssa_(ssa),
        index_(index),
        reporter_(reporter),
        scope_(scope) {}

  void Run();

 private:
  // The region a block belongs to; decides what a yield must carry.
  struct Region {
    enum Kind { kFunctionBody, kLoopBody, kThenBranch, kElseBranch };
    Kind kind = kFunctionBody;
    const Stmt* owner = nullptr;  // the loop / if
  };
  void CollectSignatureSymbols();
  void VerifySignatureSymbols();
  template <typename Describe>
  void CheckSignatureDim(const Dim& dim, Describe&& describe);

  void VerifyBlock(const Block& block, const Region& region);
  void VerifyStmt(const Stmt& stmt, const Region& region);
  void VerifyAssign(const Stmt& stmt);
  void VerifyStoreOrAtomic(const Stmt& stmt);
  void VerifyLoop(const Stmt& stmt);
  void VerifyIf(const Stmt& stmt);
  void VerifyYield(const Stmt& stmt, const Region& region);
  void VerifyReturn(const Stmt& stmt);
  void VerifyLaunch(const Stmt& stmt);
  void VerifyLaunchAgainstCallee(const Stmt& stmt, const Function& callee);

  // Each returns true when the expression is well formed and its type can
  // be trusted by the caller (so errors do not cascade up the tree).
  bool VerifyExpr(const Expr* expr);
  bool VerifyVarUse(const Expr& expr);
  bool VerifyConst(const Expr& expr);
  // A scan's inputs as expressions, its combine results as elementwise
  // trees over scan_arg leaves (scan_verifier.cpp).
  bool VerifyScanOperands(const Expr& scan);
  bool VerifyCombine(const Expr& expr, const Expr& scan);
  bool VerifyIndex(const Index& index);
  bool VerifyIntegerScalarExpr(const Expr* expr, std::string_view role);
  // `what` and `name` make the subject of the message ("store target
  // 'x'"); `name` may be empty.
  bool CheckIndexRank(const Type& base, const IndexList& indices,
                      std::string_view what, std::string_view name);
  void VerifyLoopDim(const LoopDim& dim, std::string_view block_role);
  void VerifyAttrDims(const AttrList& attrs);

  // Symbols in types and dims are uses of the value they name. `describe`
  // names the use ("symbol 'm' in the type f32[m] of 'x'") and is only
  // called when there is a problem.
  template <typename Describe>
  void CheckDim(const Dim& dim, Describe&& describe);
  void CheckTypeSymbols(const Type& type, std::string_view owner);

  void Define(const Value& value, DefKind kind);
  // Where `name` is first defined anywhere in the function, if it is; the
  // index is built on the first call (error paths only).
  const SourceLoc* FindAnyDefinition(std::string_view name);
  void DefineEscapes(const Escapes& escapes);
  void ReportUnresolved(std::string_view name, const std::string& subject);
  void Error(std::string_view what);

  const Function& function_;
  const bool ssa_;
  const ModuleIndex& index_;
  Reporter& reporter_;

  // Symbols in parameter and result types: the shapes of the arguments,
  // bound on entry. They must name a parameter or a value defined at the
  // top level of the body (usually a size() query) but need not dominate
  // their uses.
  absl::flat_hash_set<std::string_view, text::NameHash> signature_symbols_;
  bool all_definitions_built_ = false;
  absl::flat_hash_map<std::string_view, SourceLoc> all_definitions_;
  ScopedNames& scope_;
  const Stmt* current_ = nullptr;  // the statement errors are reported at
  int loop_depth_ = 0;             // tile and range loops around current_
  int suggestions_made_ = 0;
};

// True for i8..i64 scalars: what dims, loop bounds and scalar indices hold.
bool IsIntegerScalar(const Type& type);

}  // namespace tessera::verifier
