// File-level parsing: imports, top-level constants, kernel decorators,
// and skipping everything that is not a kernel.
#include "parser.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>

#include "parser_internal.h"
#include "python_structure.h"

namespace tessera::helion_py {
namespace parser_internal {

bool IsKeyword(std::string_view word) {
  static constexpr std::string_view kKeywords[] = {
      "False",  "None",   "True",    "and",      "as",       "assert", "async",
      "await",  "break",  "class",   "continue", "def",      "del",    "elif",
      "else",   "except", "finally", "for",      "from",     "global", "if",
      "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
      "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
  if (word.empty() || !(std::islower(static_cast<unsigned char>(word[0])) ||
                        word[0] == 'F' || word[0] == 'N' || word[0] == 'T')) {
    return false;
  }
  for (std::string_view keyword : kKeywords) {
    if (keyword[0] == word[0] && keyword == word) return true;
  }
  return false;
}

ParsedFile Parser::Run() {
  ParsedFile file;
  file.imports = {{"helion", "helion"},
                  {"hl", "helion.language"},
                  {"torch", "torch"},
                  {"math", "math"},
                  {"F", "torch.nn.functional"}};
  // CPython stops at the first error, so one is reported and the file has
  // no kernels: what follows a broken line cannot be trusted.
  std::optional<SourceError> error = std::move(source_error_);
  if (std::optional<SourceError> structure = CheckBlockStructure(tokens_)) {
    KeepFirst(error, *std::move(structure));
  }
  if (error) {
    Error(SourceLoc{error->line, error->col, error->length}, error->message);
    return file;
  }
  bool kernel_decorator = false;
  KernelDef decorated;
  while (!AtEnd()) {
    const Token& token = Peek();
    if (token.kind == TokenKind::kNewline || token.kind == TokenKind::kDedent ||
        token.kind == TokenKind::kIndent) {
      // Stray INDENT/DEDENT at top level come from odd indentation in
      // non-kernel code; skip them.
      if (token.kind == TokenKind::kIndent)
        SkipBlock();
      else
        ++pos_;
      continue;
    }
    if (token.IsOp("@")) {
      if (IsKernelDecorator(file.imports)) {
        kernel_decorator = true;
        ReadDecoratorConfig(file.imports, decorated);
      }
      SkipStatement();
      continue;
    }
    if (token.IsName("def") && kernel_decorator) {
      kernel_decorator = false;
      KernelDef kernel = std::move(decorated);
      decorated = KernelDef{};
      if (ParseKernel(kernel)) {
        // Python rebinds the name: the later definition is the kernel.
        auto same = std::find_if(
            file.kernels.begin(), file.kernels.end(),
            [&](const KernelDef& k) { return k.name == kernel.name; });
        if (same != file.kernels.end()) {
          diagnostics_->Warning(
              path_, kernel.loc,
              "kernel '" + kernel.name +
                  "' is defined again: this definition replaces the one at "
                  "line " +
                  std::to_string(same->loc.line) +
                  ", as Python rebinds the name");
          file.kernels.erase(same);
        }
        file.kernels.push_back(std::move(kernel));
      }
      continue;
    }
    if (token.IsName("def")) {
      ParseFunction(file);
      continue;
    }
    kernel_decorator = false;
    decorated = KernelDef{};
    if (token.IsName("import") || token.IsName("from")) {
      ReadImport(file.imports);
    } else if (token.kind == TokenKind::kName && Peek(1).IsOp("=")) {
      ReadConstant(file.constants);
    }
    SkipStatement();
  }
  return file;
}

void Parser::ParseFunction(ParsedFile& file) {
  DiagnosticEngine quiet;
  DiagnosticEngine* reporting = diagnostics_;
  const bool depth_reported = depth_error_reported_;
  diagnostics_ = &quiet;
  const size_t start = pos_;
  KernelDef function;
  const bool parsed = ParseKernel(function);
  diagnostics_ = reporting;
  depth_error_reported_ = depth_reported;
  depth_ = 0;
  // Nothing was consumed (a malformed header): move on as for any other
  // statement.
  if (pos_ == start) SkipStatement();
  if (parsed) {
    file.functions[function.name] = std::move(function);
  } else if (!function.name.empty()) {
    file.functions.erase(function.name);  // a redefinition that is not ours
  }
}

void Parser::SkipStatement() {
  while (!AtEnd() && Peek().kind != TokenKind::kNewline) {
    if (Peek().kind == TokenKind::kIndent) {
      SkipBlock();
      continue;
    }
    if (Peek().kind == TokenKind::kDedent) return;
    ++pos_;
  }
  if (!AtEnd()) ++pos_;  // NEWLINE
  if (Peek().kind == TokenKind::kIndent) SkipBlock();
}

LaunchHints Parser::ReadLaunchHints() const {
  // `name = <int>` anywhere in the decorator's call, first one wins
  // (ReadDecoratorConfig reads the block sizes).
  LaunchHints hints;
  int depth = 0;
  for (size_t p = pos_ + 1; p + 2 < tokens_.size(); ++p) {
    const Token& token = tokens_[p];
    if (token.IsOp("(") || token.IsOp("[")) ++depth;
    if (token.IsOp(")") || token.IsOp("]")) --depth;
    if (token.kind == TokenKind::kNewline && depth <= 0) break;
    if (token.kind != TokenKind::kName || !tokens_[p + 1].IsOp("=") ||
        tokens_[p + 2].kind != TokenKind::kNumber) {
      continue;
    }
    std::optional<int64_t>* slot = token.IsName("num_warps") ? &hints.num_warps
                                   : token.IsName("num_stages")
                                       ? &hints.num_stages
                                       : nullptr;
    if (slot == nullptr || slot->has_value()) continue;
    int64_t value = 0;
    const std::string_view text = tokens_[p + 2].text;
    const auto [end, error] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size() && value > 0) {
      *slot = value;
    }
  }
  return hints;
}

void Parser::SkipBlock() {
  int level = 0;
  while (!AtEnd()) {
    TokenKind kind = Next().kind;
    if (kind == TokenKind::kIndent) ++level;
    if (kind == TokenKind::kDedent && --level <= 0) return;
  }
}

bool Parser::IsKernelDecorator(const ImportMap& imports) const {
  size_t p = pos_ + 1;
  std::string dotted;
  while (p < tokens_.size() && tokens_[p].kind == TokenKind::kName) {
    dotted += std::string(tokens_[p].text);
    if (p + 1 < tokens_.size() && tokens_[p + 1].IsOp(".")) {
      dotted += ".";
      p += 2;
    } else {
      ++p;
      break;
    }
  }
  if (dotted.empty()) return false;
  std::string head = dotted.substr(0, dotted.find('.'));
  auto it = imports.find(head);
  if (it == imports.end()) return false;
  std::string canonical = it->second + dotted.substr(head.size());
  if (canonical != "helion.kernel") return false;
  return tokens_[p].kind == TokenKind::kNewline || tokens_[p].IsOp("(");
}

void Parser::ReadDecoratorConfig(const ImportMap& imports,
                                 KernelDef& kernel) const {
  kernel.launch = ReadLaunchHints();
  // Tokens of the decorator line: newlines inside its parentheses are not
  // tokens, so the line ends at the first NEWLINE.
  size_t end = pos_;
  while (end < tokens_.size() && tokens_[end].kind != TokenKind::kNewline &&
         tokens_[end].kind != TokenKind::kEnd) {
    ++end;
  }
  auto canonical = [&](size_t& p) {
    std::string dotted = ReadDotted(p);
    std::string head = dotted.substr(0, dotted.find('.'));
    auto it = imports.find(head);
    return it == imports.end() ? dotted
                               : it->second + dotted.substr(head.size());
  };
  for (size_t p = pos_; p + 3 < end; ++p) {
    if (!tokens_[p].IsName("config") || !tokens_[p + 1].IsOp("=")) continue;
    size_t q = p + 2;
    if (canonical(q) != "helion.Config" || q >= end || !tokens_[q].IsOp("(")) {
      return;
    }
    int depth = 0;
    for (; q < end; ++q) {
      if (tokens_[q].IsOp("(") || tokens_[q].IsOp("[")) ++depth;
      if (tokens_[q].IsOp(")") || tokens_[q].IsOp("]")) --depth;
      if (depth == 1 && tokens_[q].IsName("block_sizes") && q + 2 < end &&
          tokens_[q + 1].IsOp("=") && tokens_[q + 2].IsOp("[")) {
        break;
      }
      if (depth == 0) return;
    }
    if (q >= end) return;
    std::vector<int64_t> blocks;
    for (size_t r = q + 3; r < end; ++r) {
      const Token& item = tokens_[r];
      if (item.IsOp("]")) {
        kernel.config_block_sizes = std::move(blocks);
        kernel.config_loc = LocOf(tokens_[q]);
        return;
      }
      if (item.IsOp(",")) continue;
      if (item.kind != TokenKind::kNumber) return;  // not a literal list
      char* tail = nullptr;
      const std::string text(item.text);
      const long long value = std::strtoll(text.c_str(), &tail, 10);
      if (tail == nullptr || *tail != '\0') return;
      blocks.push_back(value);
    }
    return;
  }
}

std::string Parser::ReadDotted(size_t& p) const {
  std::string dotted;
  while (p < tokens_.size() && tokens_[p].kind == TokenKind::kName) {
    dotted += std::string(tokens_[p].text);
    ++p;
    if (!tokens_[p].IsOp(".")) break;
    dotted += ".";
    ++p;
  }
  return dotted;
}

namespace {

// Tessera's own package spells Helion's names (`tessera.kernel`,
// `tessera.language` as hl) for kernels written against the runtime.
std::string HelionModule(std::string module) {
  if (module == "tessera" || module.starts_with("tessera.")) {
    return "helion" + module.substr(std::string_view("tessera").size());
  }
  return module;
}

}  // namespace

void Parser::ReadImport(ImportMap& imports) const {
  size_t p = pos_;
  if (tokens_[p].IsName("import")) {
    ++p;
    while (tokens_[p].kind == TokenKind::kName) {
      std::string module = ReadDotted(p);
      if (tokens_[p].IsName("as") && tokens_[p + 1].kind == TokenKind::kName) {
        imports[std::string(tokens_[p + 1].text)] = HelionModule(module);
        p += 2;
      } else {
        std::string head = module.substr(0, module.find('.'));
        imports[head] = HelionModule(head);
      }
      if (!tokens_[p].IsOp(",")) break;
      ++p;
    }
    return;
  }
  ++p;                                                         // from
  if (tokens_[p].IsOp(".") || tokens_[p].IsOp("...")) return;  // relative
  const std::string module = HelionModule(ReadDotted(p));
  if (!tokens_[p].IsName("import")) return;
  ++p;
  if (tokens_[p].IsOp("(")) ++p;
  while (tokens_[p].kind == TokenKind::kName) {
    std::string name(tokens_[p].text);
    ++p;
    std::string local = name;
    if (tokens_[p].IsName("as") && tokens_[p + 1].kind == TokenKind::kName) {
      local = std::string(tokens_[p + 1].text);
      p += 2;
    }
    imports[local] = module + "." + name;
    if (!tokens_[p].IsOp(",")) break;
    ++p;
  }
}

void Parser::ReadConstant(std::map<std::string, NodePtr>& constants) {
  size_t p = pos_ + 2;
  bool negative = tokens_[p].IsOp("-");
  if (negative) ++p;
  const Token& value = tokens_[p];
  if (tokens_[p + 1].kind != TokenKind::kNewline) return;
  NodePtr node;
  if (value.kind == TokenKind::kNumber) {
    // Outside kernels nothing is reported: a malformed number is skipped.
    node = ParseNumberQuiet(value);
    if (node && negative) {
      if (node->kind == NodeKind::kInt)
        node->int_value = -node->int_value;
      else
        node->float_value = -node->float_value;
    }
  } else if (!negative && (value.IsName("True") || value.IsName("False"))) {
    node = std::make_unique<Node>();
    node->kind = NodeKind::kBool;
    node->int_value = value.IsName("True") ? 1 : 0;
  } else if (!negative && value.kind == TokenKind::kString) {
    node = std::make_unique<Node>();
    node->kind = NodeKind::kString;
    node->text = StringValue(value.text);
  }
  if (node) constants[std::string(tokens_[pos_].text)] = std::move(node);
}

NodePtr Parser::ParseNumberQuiet(const Token& token) {
  std::string text;
  for (char c : token.text) {
    if (c != '_') text += c;
  }
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])))
    return nullptr;
  auto node = std::make_unique<Node>();
  char* end = nullptr;
  errno = 0;
  if (text.find_first_of(".eE") != std::string::npos &&
      text.find_first_of("xX") == std::string::npos) {
    node->kind = NodeKind::kFloat;
    node->float_value = std::strtod(text.c_str(), &end);
  } else {
    node->kind = NodeKind::kInt;
    node->int_value = std::strtoll(text.c_str(), &end, 0);
  }
  if (end == nullptr || *end != '\0' || errno == ERANGE) return nullptr;
  return node;
}

}  // namespace parser_internal

ParsedFile ParseFile(std::string_view source, const std::string& path,
                     DiagnosticEngine& diagnostics) {
  return parser_internal::Parser(source, path, diagnostics).Run();
}

}  // namespace tessera::helion_py
