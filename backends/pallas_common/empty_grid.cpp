#include "empty_grid.h"

#include <algorithm>
#include <utility>

#include "fmt/format.h"
#include "py_text.h"

namespace tessera::pallas {
namespace {

// A size known at compile time, or the test that it is zero at the call.
struct SizeTerm {
  bool is_static = false;
  int64_t value = 0;
  std::string test;  // "x_d0 == 0"
};

SizeTerm TermOf(const std::string& size) {
  if (IsNumber(size)) return SizeTerm{true, std::stoll(size), ""};
  if (size.size() > 1 && size[0] == '-' && IsNumber(size.substr(1))) {
    return SizeTerm{true, -std::stoll(size.substr(1)), ""};
  }
  // Sizes are never negative; an extent `end - (begin)` may be.
  const bool plain = Paren(size) == size;
  return SizeTerm{false, 0,
                  plain ? size + " == 0" : fmt::format("{} <= 0", size)};
}

// "end - (begin)", folded when both are numbers.
std::string GridExtent(const std::string& begin, const std::string& end) {
  if (begin == "0") return end;
  if (IsNumber(begin) && IsNumber(end)) {
    return fmt::format("{}", std::stoll(end) - std::stoll(begin));
  }
  return fmt::format("{} - ({})", end, begin);
}

}  // namespace

std::vector<LaunchOutput> LaunchOutputs(
    const KernelPlan& plan, const HostBindings& bindings,
    const std::function<std::string(const RefPlan&, int)>& host_text) {
  std::vector<LaunchOutput> outputs;
  for (const RefPlan& ref : plan.refs) {
    if (!ref.written()) continue;
    LaunchOutput& output = outputs.emplace_back();
    output.name = host_text(ref, -1);
    for (size_t d = 0; d < ref.dims.size(); ++d) {
      output.dims.push_back(host_text(ref, static_cast<int>(d)));
    }
    output.dtype = JnpDType(ref.type.dtype);
    output.has_init = bindings.outputs_with_init.count(ref.name) != 0;
  }
  return outputs;
}

EmptyLaunchGuard EmptyLaunchCondition(
    const HostBindings& bindings, const std::vector<LaunchOutput>& outputs) {
  EmptyLaunchGuard guard;
  // Sizes of which one zero makes the launch empty, with their tests.
  std::vector<std::pair<std::string, std::string>> any_of;
  auto add_any = [&](const std::string& size, const std::string& test) {
    for (const auto& [have, _] : any_of) {
      if (have == size) return;
    }
    any_of.emplace_back(size, test);
  };
  auto in_any = [&](const std::string& size) {
    return std::any_of(any_of.begin(), any_of.end(),
                       [&](const auto& item) { return item.first == size; });
  };
  for (size_t g = 0; g < bindings.grid_end.size(); ++g) {
    const std::string extent =
        GridExtent(bindings.grid_begin[g], bindings.grid_end[g]);
    SizeTerm term = TermOf(extent);
    if (term.is_static && term.value <= 0) {
      guard.when = LaunchEmptiness::kAlways;
      return guard;
    }
    if (!term.is_static) add_any(extent, term.test);
  }
  // Every output empty. Past the grid's tests (all false there), an output
  // is empty when one of its other sizes is zero: one clause each, all of
  // them true; an output with no such size is never empty there.
  std::vector<std::vector<std::pair<std::string, std::string>>> clauses;
  bool outputs_empty = !outputs.empty();
  for (const LaunchOutput& output : outputs) {
    std::vector<std::pair<std::string, std::string>> clause;
    bool statically_empty = false;
    for (const std::string& dim : output.dims) {
      SizeTerm term = TermOf(dim);
      if (term.is_static) {
        statically_empty = statically_empty || term.value <= 0;
      } else if (!in_any(dim) &&
                 std::find(clause.begin(), clause.end(),
                           std::pair(dim, term.test)) == clause.end()) {
        clause.emplace_back(dim, term.test);
      }
    }
    if (statically_empty) continue;
    if (clause.empty()) outputs_empty = false;
    if (std::find(clauses.begin(), clauses.end(), clause) == clauses.end()) {
      clauses.push_back(clause);
    }
  }
  if (outputs_empty && clauses.empty()) {
    guard.when = LaunchEmptiness::kAlways;
    return guard;
  }
  std::string all_empty;  // the clauses, when more than one
  if (outputs_empty && clauses.size() == 1) {
    for (const auto& [size, test] : clauses[0]) add_any(size, test);
  } else if (outputs_empty) {
    for (const auto& clause : clauses) {
      std::string tests;
      for (const auto& [size, test] : clause) {
        tests += (tests.empty() ? "" : " or ") + test;
      }
      all_empty += (all_empty.empty() ? "(" : " and (") + tests + ")";
    }
  }
  std::string condition;
  for (const auto& [size, test] : any_of) {
    condition += (condition.empty() ? "" : " or ") + test;
    guard.nonzero_when_launched.insert(size);
  }
  if (!all_empty.empty()) {
    condition += (condition.empty() ? "" : " or ") + all_empty;
  }
  if (condition.empty()) return guard;
  guard.when = LaunchEmptiness::kAtCall;
  guard.condition = condition;
  return guard;
}

void WriteGuardedLaunch(const EmptyLaunchGuard& guard,
                        const std::vector<LaunchOutput>& outputs,
                        const PyLines& launch, PyLines& out) {
  if (guard.when == LaunchEmptiness::kNever) {
    out.Append(launch);
    return;
  }
  PyLines empties;
  empties.Line(
      "# Nothing to launch: an empty grid or empty outputs (Pallas takes "
      "neither).");
  for (const LaunchOutput& output : outputs) {
    if (output.has_init) continue;
    std::string shape = "(";
    for (size_t d = 0; d < output.dims.size(); ++d) {
      shape += (d ? ", " : "") + output.dims[d];
    }
    shape += output.dims.size() == 1 ? ",)" : ")";
    empties.Line(fmt::format("{} = jnp.zeros({}, {})", output.name, shape,
                             output.dtype));
  }
  if (guard.when == LaunchEmptiness::kAlways) {
    out.Append(empties);
    return;
  }
  out.Line(fmt::format("if {}:", guard.condition));
  out.Indent();
  out.Append(empties);
  if (std::all_of(outputs.begin(), outputs.end(),
                  [](const LaunchOutput& output) { return output.has_init; })) {
    out.Line("pass");
  }
  out.Dedent();
  out.Line("else:");
  out.Indent();
  out.Append(launch);
  out.Dedent();
}

bool MayReadEmpty(const EmptyLaunchGuard& guard, const RefPlan& ref, size_t d,
                  const std::string& size) {
  if (ref.written()) return false;
  const Dim& dim = ref.type.shape[d];
  return dim.is_static() ? dim.size == 0
                         : guard.nonzero_when_launched.count(size) == 0;
}

int64_t PaddedStaticSize(int64_t size, const SpecDim& spec, bool operand) {
  const int64_t multiple = spec.pad_multiple;
  const int64_t padded = size == 0 && operand
                             ? multiple
                             : (size + multiple - 1) / multiple * multiple;
  return padded + spec.pad_extra + spec.pad_low;
}

}  // namespace tessera::pallas
