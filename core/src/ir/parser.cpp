// The parser's statements, functions and module, its error reporting and
// the public entry points. See parser_internal.h for the overall design.
#include <string>

#include "absl/status/status.h"
#include "ir/parser_internal.h"
#include "tessera/ir/text.h"

namespace tessera {
namespace text {

// --- Errors ------------------------------------------------------------------

bool Parser::ErrorAt(const Token& token, std::string message) {
  if (token.kind == TokenKind::kError && token.error != nullptr) {
    message = token.error;
  }
  if (errors_ < kMaxErrors) {
    if (first_error_.empty()) {
      first_error_ = fmt::format("{}:{}:{}: {}", filename_, token.line,
                                 token.col, message);
    }
    diagnostics_.Error(std::string(filename_), LocOf(token),
                       std::move(message));
  } else if (errors_ == kMaxErrors) {
    diagnostics_.Error(std::string(filename_), LocOf(token),
                       "too many errors; giving up");
  }
  ++errors_;
  return false;
}

std::string Parser::Describe(const Token& token) const {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kString:
      return fmt::format("string {}", token.text);
    default:
      return fmt::format("'{}'", token.text);
  }
}

bool Parser::ExpectFailed(std::string_view expected, std::string_view context) {
  return ErrorAt(Peek(), fmt::format("expected '{}' {}, found {}", expected,
                                     context, Describe(Peek())));
}

bool Parser::ReportTooDeep() {
  too_deep_ = true;
  ErrorAt(Peek(), fmt::format("nesting deeper than {} levels", kMaxDepth));
  return true;
}

// Skips the rest of a failed statement: to the next token that starts a
// line outside any brace the statement opened, or to the '}' that closes
// the enclosing block.
void Parser::Recover(size_t statement_start) {
  int braces = 0;
  while (!AtEnd()) {
    const Token token = Peek();
    if (consumed_ > statement_start && token.first_on_line && braces <= 0)
      return;
    if (token.Is("{")) ++braces;
    if (token.Is("}")) {
      if (braces == 0) return;
      --braces;
    }
    Skip();
  }
}

// --- Statements --------------------------------------------------------------
bool Parser::ParseBlock(Block& block) {
  DepthGuard guard(depth_);
  if (TooDeep()) return false;
  if (!Expect("{", "to start a block")) return false;
  bool ok = true;
  while (!Accept("}")) {
    if (AtEnd()) {
      return ErrorAt(Peek(),
                     "expected '}' to close the block, found end of "
                     "input");
    }
    if (GaveUp()) return false;
    size_t start = consumed_;
    Stmt stmt;
    if (ParseStmt(stmt)) {
      block.stmts.push_back(std::move(stmt));
    } else {
      ok = false;
      // The symbol table may point into the failed statement.
      failed_stmts_.push_back(std::move(stmt));
      if (too_deep_) return false;
      Recover(start);
    }
  }
  return ok;
}

bool Parser::ParseStmt(Stmt& stmt) {
  const Token first = Peek();
  if (locate_in_tir_) stmt.loc = LocOf(first);
  bool keyword = first.kind == TokenKind::kIdent && !Peek(1).Is(":");
  if (keyword && (first.text == "store" || first.text == "atomic")) {
    stmt.kind = first.text == "store" ? StmtKind::kStore : StmtKind::kAtomic;
    Skip();
    if (!ParseOptionalAttrs(stmt.attrs)) return false;
    stmt.target = ParseExpr();
    if (!stmt.target || !ParseIndices(stmt.indices) ||
        !Expect("=", "before the stored value")) {
      return false;
    }
    stmt.value = ParseExpr();
    return stmt.value && ParseOptionalLoc(stmt.loc);
  }
  if (keyword && (first.text == "yield" || first.text == "return")) {
    stmt.kind = first.text == "yield" ? StmtKind::kYield : StmtKind::kReturn;
    Skip();
    if (!ParseOptionalAttrs(stmt.attrs)) return false;
    // The operand list ends with the line.
    while (!Peek().first_on_line && !Peek().Is("@") &&
           Peek().kind != TokenKind::kLoc && !Peek().Is("}") && !AtEnd()) {
      ExprPtr expr = ParseExpr();
      if (!expr) return false;
      stmt.operands.push_back(std::move(expr));
      if (!Accept(",")) break;
    }
    return ParseOptionalLoc(stmt.loc);
  }
  if (keyword && first.text == "for") return ParseLoop(stmt);
  if (keyword && first.text == "if") return ParseIf(stmt);
  if (keyword && first.text == "launch") return ParseLaunch(stmt);
  if (first.kind != TokenKind::kIdent && first.kind != TokenKind::kString) {
    return ErrorAt(
        first, fmt::format("expected a statement, found {}", Describe(first)));
  }
  // Results, then an assignment or a statement that produces them.
  while (true) {
    Value value;
    if (!ParseValueDef(value)) return false;
    stmt.results.push_back(std::move(value));
    if (!Accept(",")) break;
  }
  if (!ParseOptionalAttrs(stmt.attrs)) return false;
  if (!Expect("=", "after the defined values")) return false;
  const Token head = Peek();
  bool defines_results =
      head.kind == TokenKind::kIdent &&
      (head.text == "for" || head.text == "if" || head.text == "launch");
  if (defines_results) {
    if (!stmt.attrs.empty()) {
      return ErrorAt(head, fmt::format("attributes of a '{}' go after the "
                                       "keyword",
                                       head.text));
    }
    if (head.text == "for") return ParseLoop(stmt);
    if (head.text == "if") return ParseIf(stmt);
    return ParseLaunch(stmt);
  }
  stmt.kind = StmtKind::kAssign;
  if (stmt.results.size() != 1) {
    return ErrorAt(first, "an assignment defines exactly one value");
  }
  stmt.value = ParseExpr();
  if (!stmt.value || !ParseOptionalLoc(stmt.loc)) return false;
  Define(stmt.results[0]);
  return true;
}

bool Parser::ParseLoop(Stmt& stmt) {
  Skip();  // 'for'
  if (!ParseOptionalAttrs(stmt.attrs)) return false;
  while (true) {
    Value var;
    if (!ParseValueDef(var)) return false;
    stmt.vars.push_back(std::move(var));
    if (!Accept(",")) break;
  }
  if (!ExpectWord("in", "after the loop variables")) return false;
  const Token kind = Peek();
  if (AcceptWord("tile")) {
    stmt.kind = StmtKind::kTileLoop;
  } else if (AcceptWord("range")) {
    stmt.kind = StmtKind::kRangeLoop;
  } else {
    return ErrorAt(kind, fmt::format("expected 'tile' or 'range', found {}",
                                     Describe(kind)));
  }
  if (!ParseLoopDims(stmt.dims)) return false;
  if (AcceptWord("iter")) {
    if (!Expect("(", "after 'iter'")) return false;
    while (true) {
      Value arg;
      if (!ParseValueDef(arg) || !Expect("=", "before the initial value")) {
        return false;
      }
      ExprPtr init = ParseExpr();
      if (!init) return false;
      stmt.iter_args.push_back(std::move(arg));
      stmt.inits.push_back(std::move(init));
      if (Accept(")")) break;
      if (!Expect(",", "or ')' in iter")) return false;
    }
  }
  if (AtAttrs()) {
    if (!stmt.attrs.empty()) {
      return ErrorAt(Peek(), "loop attributes are given twice");
    }
    if (!ParseAttrs(stmt.attrs)) return false;
  }
  if (!ParseOptionalLoc(stmt.loc)) return false;
  for (const Value& var : stmt.vars) Define(var);
  for (const Value& arg : stmt.iter_args) Define(arg);
  stmt.regions.emplace_back();
  bool ok = ParseBlock(stmt.regions[0]);
  for (const Value& result : stmt.results) Define(result);
  return ok;
}

bool Parser::ParseIf(Stmt& stmt) {
  stmt.kind = StmtKind::kIf;
  Skip();  // 'if'
  if (!ParseOptionalAttrs(stmt.attrs)) return false;
  stmt.value = ParseExpr();
  if (!stmt.value || !ParseOptionalLoc(stmt.loc)) return false;
  stmt.regions.reserve(2);  // then and else: one allocation
  stmt.regions.emplace_back();
  bool ok = ParseBlock(stmt.regions.back());
  // The else block is parsed even when the then block had errors, so its
  // own errors are reported too.
  if (!too_deep_ && AcceptWord("else")) {
    stmt.regions.emplace_back();
    ok = ParseBlock(stmt.regions.back()) && ok;
  }
  for (const Value& result : stmt.results) Define(result);
  return ok;
}

bool Parser::ParseLaunch(Stmt& stmt) {
  stmt.kind = StmtKind::kLaunch;
  Skip();  // 'launch'
  AttrList leading;
  if (!ParseOptionalAttrs(leading)) return false;
  if (Accept("@")) {
    std::string callee;
    if (!ParseName(callee, "the launched function's name")) return false;
    stmt.attrs.push_back(Attr{"callee", std::move(callee)});
  }
  for (Attr& attr : leading) stmt.attrs.push_back(std::move(attr));
  if (!ExpectWord("grid", "in a launch") || !ParseLoopDims(stmt.dims) ||
      !Expect("(", "to start the launch arguments") ||
      !ParseExprList(stmt.operands, ")")) {
    return false;
  }
  if (AtAttrs()) {
    AttrList trailing;
    if (!ParseAttrs(trailing)) return false;
    for (Attr& attr : trailing) {
      if (FindAttr(stmt.attrs, attr.name) != nullptr) {
        return ErrorAt(Peek(),
                       fmt::format("duplicate attribute '{}'", attr.name));
      }
      stmt.attrs.push_back(std::move(attr));
    }
  }
  if (!ParseOptionalLoc(stmt.loc)) return false;
  for (const Value& result : stmt.results) Define(result);
  return true;
}

bool Parser::ParseFunction(Function& function) {
  ResetSymbols();
  const Token func = Peek();
  if (locate_in_tir_) function.loc = LocOf(func);
  if (!ExpectWord("func", "to start a function")) return false;
  const Token kind = Peek();
  if (AcceptWord("kernel")) {
    function.kind = FunctionKind::kKernel;
  } else if (AcceptWord("host")) {
    function.kind = FunctionKind::kHost;
  } else if (AcceptWord("device")) {
    function.kind = FunctionKind::kDevice;
  } else {
    return ErrorAt(kind, fmt::format("expected 'kernel', 'host' or 'device', "
                                     "found {}",
                                     Describe(kind)));
  }
  if (!Expect("@", "before the function name") ||
      !ParseName(function.name, "a function name") ||
      !Expect("(", "to start the parameters")) {
    return false;
  }
  if (!Accept(")")) {
    while (true) {
      Value param;
      if (!ParseValueDef(param)) return false;
      function.params.push_back(std::move(param));
      if (Accept(")")) break;
      if (!Expect(",", "or ')' in the parameters")) return false;
    }
    // Defined once the list is complete: the table points into it.
    for (const Value& param : function.params) Define(param);
  }
  if (Accept("->")) {
    if (!Expect("(", "to start the result types")) return false;
    if (!Accept(")")) {
      while (true) {
        Type type;
        if (!ParseType(type)) return false;
        function.result_types.push_back(std::move(type));
        if (Accept(")")) break;
        if (!Expect(",", "or ')' in the result types")) return false;
      }
    }
  }
  if (!ParseOptionalAttrs(function.attrs) || !ParseOptionalLoc(function.loc)) {
    return false;
  }
  return ParseBlock(function.body);
}

bool Parser::ParseModuleHeader(Module& module) {
  Skip();  // 'module'
  const Token file = Peek();
  if (file.kind != TokenKind::kString) {
    return ErrorAt(file, fmt::format("expected the source file as a string, "
                                     "found {}",
                                     Describe(file)));
  }
  if (!ParseName(module.source_file, "a string")) return false;
  if (AcceptWord("properties")) {
    if (!Expect("[", "after 'properties'")) return false;
    if (!Accept("]")) {
      while (true) {
        const Token name = Peek();
        std::string property_name;
        if (!ParseName(property_name, "a property name")) return false;
        std::optional<Property> property = FindProperty(property_name);
        if (!property) {
          std::string closest =
              ClosestName(property_name, RegisteredPropertyNames());
          return ErrorAt(
              name, closest.empty()
                        ? fmt::format("unknown property '{}'", property_name)
                        : fmt::format("unknown property '{}'; did you mean "
                                      "'{}'?",
                                      property_name, closest));
        }
        module.properties.Insert(*property);
        if (Accept("]")) break;
        if (!Expect(",", "or ']' in properties")) return false;
      }
    }
  }
  return ParseOptionalAttrs(module.attrs);
}

bool Parser::ParseModule(Module& module) {
  if (Peek().Is("module")) {
    size_t start = consumed_;
    if (!ParseModuleHeader(module)) Recover(start);
  } else {
    module.source_file = std::string(filename_);
    locate_in_tir_ = true;
  }
  while (!AtEnd() && !GaveUp()) {
    size_t start = consumed_;
    Function function;
    if (ParseFunction(function)) {
      module.functions.push_back(std::move(function));
      continue;
    }
    if (too_deep_) break;
    // Resume at the next function.
    if (consumed_ == start) Next();
    while (!AtEnd() && !(Peek().first_on_line && Peek().Is("func"))) Next();
  }
  return errors_ == 0;
}

bool Parser::ParseTypeOnly(Type& type) {
  if (!ParseType(type)) return false;
  if (!AtEnd()) {
    return ErrorAt(
        Peek(), fmt::format("unexpected {} after the type", Describe(Peek())));
  }
  return true;
}

}  // namespace text

absl::StatusOr<Module> ParseModule(std::string_view text,
                                   std::string_view filename,
                                   DiagnosticEngine& diagnostics) {
  diagnostics.AddSource(std::string(filename), std::string(text));
  text::Parser parser(text, filename, diagnostics);
  Module module;
  if (!parser.ParseModule(module)) {
    return absl::InvalidArgumentError(
        parser.errors() == 1
            ? parser.first_error()
            : fmt::format("{} (and {} more errors)", parser.first_error(),
                          parser.errors() - 1));
  }
  return module;
}

absl::StatusOr<Type> ParseType(std::string_view text) {
  DiagnosticEngine diagnostics;
  text::Parser parser(text, "<type>", diagnostics);
  Type type;
  if (!parser.ParseTypeOnly(type)) {
    const Diagnostic& first = diagnostics.diagnostics().front();
    return absl::InvalidArgumentError(
        fmt::format("invalid type '{}': {} (at column {})", text, first.message,
                    first.loc.col));
  }
  return type;
}

}  // namespace tessera
