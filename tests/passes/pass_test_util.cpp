#include "pass_test_util.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "outline.h"
#include "ssa.h"
#include "tessera/properties.h"

namespace tessera::pass_testing {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> ListFiles(const std::string& dir,
                                   std::string_view suffix) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string path = entry.path().string();
    if (path.size() >= suffix.size() &&
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

absl::StatusOr<bool> RunPass(std::string_view name, Module& module,
                             DiagnosticEngine& diagnostics) {
  PropertySet required;
  PropertySet produced;
  absl::StatusOr<bool> changed;
  if (name == "ssa") {
    produced = {kSsaProperty};
  } else if (name == "outline") {
    required = {kSsaProperty};
    produced = {kOutlinedProperty, kSsaProperty};
  } else {
    return absl::InvalidArgumentError(fmt::format("unknown pass '{}'", name));
  }
  if (!module.properties.ContainsAll(required)) {
    return absl::FailedPreconditionError(
        fmt::format("pass '{}' requires {}", name, required.ToString()));
  }
  changed = name == "ssa" ? ConvertToSSA(module, diagnostics)
                          : OutlineKernels(module, diagnostics);
  if (changed.ok()) module.properties = module.properties.Union(produced);
  return changed;
}

absl::Status RunPipeline(const std::vector<std::string>& names, Module& module,
                         DiagnosticEngine& diagnostics) {
  for (const std::string& name : names) {
    absl::StatusOr<bool> changed = RunPass(name, module, diagnostics);
    if (!changed.ok()) return changed.status();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> FrontendIR(const std::string& tessera_binary,
                                       const std::string& example_path) {
  const std::string command =
      fmt::format("'{}' compile '{}' --passes '' --emit=ir 2>&1",
                  tessera_binary, example_path);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError("popen failed");
  std::string output;
  std::array<char, 4096> buffer;
  size_t read;
  while ((read = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    output.append(buffer.data(), read);
  }
  const int status = pclose(pipe);
  if (status != 0) {
    return absl::InternalError(
        fmt::format("`{}` failed ({}):\n{}", command, status, output));
  }
  return output;
}

namespace {

bool IsPythonIdentifier(const std::string& name) {
  static const std::set<std::string> kKeywords = {
      "False",  "None",   "True",    "and",      "as",       "assert", "async",
      "await",  "break",  "class",   "continue", "def",      "del",    "elif",
      "else",   "except", "finally", "for",      "from",     "global", "if",
      "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
      "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
  if (name.empty() || kKeywords.count(name)) return false;
  auto head = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!head(name[0])) return false;
  for (char c : name) {
    if (!head(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> NameProblems(const Function& function) {
  std::vector<std::string> problems;
  std::map<std::string, int> definitions;
  auto define = [&](const std::string& name) {
    if (++definitions[name] == 2) {
      problems.push_back(fmt::format("@{}: '{}' is defined more than once",
                                     function.name, name));
    }
    if (!IsPythonIdentifier(name)) {
      problems.push_back(fmt::format(
          "@{}: '{}' is not a valid Python identifier", function.name, name));
    }
  };
  for (const Value& param : function.params) define(param.name);
  WalkStmts(function.body, [&](const Stmt& stmt) {
    for (const Value& value : stmt.results) define(value.name);
    for (const Value& value : stmt.vars) define(value.name);
    for (const Value& value : stmt.iter_args) define(value.name);
  });
  return problems;
}

}  // namespace tessera::pass_testing
