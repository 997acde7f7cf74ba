// Range loops whose trip count is data: Helion's `for local_tile in
// hl.grid(num_group_tiles)` inside a grid step, where num_group_tiles is
// computed from offsets read from SMEM. A Python `range` needs its bounds
// when the kernel is traced, so such a loop is a jax.lax.fori_loop under
// every launcher (the launchers differ only in how tile loops stream
// blocks; a range loop streams nothing), its carried values the fori_loop's
// carry, as the jagged tile loops do (jagged_tiles.cpp).
#include "absl/strings/str_join.h"
#include "device_emitter.h"
#include "fmt/format.h"
#include "py_text.h"

namespace tessera::pallas {

namespace {

// A value of the fori_loop carry: one item, or a tuple of several.
std::string Joined(const std::vector<std::string>& items) {
  return items.size() == 1 ? items[0] : "(" + absl::StrJoin(items, ", ") + ")";
}

}  // namespace

bool DeviceEmitter::EmitDataRangeLoop(
    const Stmt& stmt, const std::string& begin, const std::string& end,
    const std::string& step, const std::vector<std::string>& args,
    const std::vector<std::string>& inits, PyLines& out) {
  const std::string var = SanitizeIdentifier(stmt.vars[0].name);
  const bool unit_step = step == "1";
  const std::string index = unit_step ? var : Fresh(var + "_step");
  const std::string carry = args.size() == 1 ? args[0] : Fresh("carry");
  const std::string body_fn = Fresh("_" + var + "_body");
  out.Line(fmt::format("def {}({}, {}):", body_fn, index, carry));
  out.Indent();
  if (args.size() > 1)
    out.Line(fmt::format("{} = {}", absl::StrJoin(args, ", "), carry));
  if (!unit_step) {
    out.Line(fmt::format("{} = {} + {} * {}", var, Paren(begin), index,
                         Paren(step)));
  }
  PyLines body;
  bool ok = EmitBody(stmt.regions[0], body, [&](const Stmt& y, PyLines& o) {
    std::vector<std::string> values;
    for (const ExprPtr& v : y.operands) values.push_back(Emit(*v));
    if (!args.empty()) o.Line("return " + Joined(values));
  });
  if (!ok) return false;
  if (args.empty()) body.Line("return " + carry);
  out.Append(body);
  out.Dedent();
  out.Blank();
  const std::string bounds = unit_step ? fmt::format("{}, {}", begin, end)
                                       : fmt::format("0, pl.cdiv({} - {}, {})",
                                                     end, Paren(begin), step);
  const std::string call =
      fmt::format("jax.lax.fori_loop({}, {}, {})", bounds, body_fn,
                  args.empty() ? "None" : Joined(inits));
  std::vector<std::string> results;
  for (const Value& result : stmt.results) {
    results.push_back(SanitizeIdentifier(result.name));
  }
  if (results.empty()) {
    out.Line(call);
  } else {
    out.Line(fmt::format("{} = {}", absl::StrJoin(results, ", "), call));
  }
  return true;
}

}  // namespace tessera::pallas
