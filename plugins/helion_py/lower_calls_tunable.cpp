// Autotuner-facing calls: hl.register_tunable with Helion's config
// fragments, the size helpers kernels use to derive block sizes from them
// (helion.cdiv, helion.next_power_of_2), and hl.barrier between grids.
//
// Tessera compiles one configuration: a tunable takes its fragment's
// default (Helion's own default: the low end of a range, the first enum
// choice) unless `--arg NAME=VALUE` (or `[kernels.K.args]`) picks another
// legal value. A size Helion derives from shapes at call time
// (next_power_of_2 of a symbolic dim) is a block size Tessera is free to
// choose, so it is usable only as `block_size=`.
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "lower_calls_internal.h"
#include "lower_internal.h"

namespace tessera::helion_py {
namespace {

// A fragment is carried as a tuple tagged with its kind: elems[0] is the
// default, then (low, high) for ranges or the choices for an enum.
constexpr std::string_view kFragmentTag = "helion.fragment.";

bool IsFragmentPath(const std::string& module) {
  return module == "helion.autotuner" ||
         module == "helion.autotuner.config_fragment";
}

bool IsPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int64_t NextPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p < v && p < (int64_t{1} << 62)) p <<= 1;
  return p;
}

Val Fragment(const std::string& kind, std::vector<Val> elems) {
  Val v = Val::Tuple(std::move(elems));
  v.text = std::string(kFragmentTag) + kind;
  return v;
}

// Whether `value` is one the fragment allows; the message says why not.
std::optional<std::string> CheckLegal(const Val& fragment, const Val& value) {
  std::string kind = fragment.text.substr(kFragmentTag.size());
  if (kind == "EnumFragment") {
    for (size_t i = 1; i < fragment.elems.size(); ++i) {
      const Val& choice = fragment.elems[i];
      if (choice.IsNumber() && value.IsNumber() &&
          choice.AsDouble() == value.AsDouble())
        return std::nullopt;
      if (choice.kind == ValKind::kString && value.kind == ValKind::kString &&
          choice.text == value.text)
        return std::nullopt;
    }
    return "it is not one of the EnumFragment's choices";
  }
  if (kind == "BooleanFragment") {
    if (value.kind == ValKind::kBool) return std::nullopt;
    return "a BooleanFragment takes True or False";
  }
  if (value.kind != ValKind::kInt) return "the fragment takes an integer";
  int64_t low = fragment.elems[1].i;
  int64_t high = fragment.elems[2].i;
  if (value.i < low || value.i > high)
    return fmt::format("it is outside [{}, {}]", low, high);
  if (kind == "PowerOfTwoFragment" && !IsPowerOfTwo(value.i))
    return "a PowerOfTwoFragment takes a power of two";
  return std::nullopt;
}

}  // namespace

std::optional<Val> KernelLowering::CallTunable(const CallSite& site,
                                               CallArgs& args) {
  Calls c(*this, args);
  SourceLoc loc = args.loc;
  const std::string& name = site.name;
  if (IsFragmentPath(site.module)) {
    if (name == "PowerOfTwoFragment" || name == "IntegerFragment") {
      std::optional<int64_t> low = c.IntArg(0, "low", loc);
      std::optional<int64_t> high = c.IntArg(1, "high", loc);
      if (!low || !high) return Val::Poison();
      int64_t def = *low;
      if (const Val* d = c.Arg(2, "default_val")) {
        if (d->kind != ValKind::kInt)
          return Fail(c.LocOf(2, "default_val"),
                      "a fragment's default must be an integer constant");
        def = d->i;
      }
      if (*low > *high || (name == "PowerOfTwoFragment" &&
                           (!IsPowerOfTwo(*low) || !IsPowerOfTwo(*high)))) {
        return Fail(loc, fmt::format("{}({}, {}) is not a valid range", name,
                                     *low, *high));
      }
      std::vector<Val> elems;
      for (int64_t v : {def, *low, *high}) elems.push_back(Val::Int(v));
      Val fragment = Fragment(name, std::move(elems));
      if (auto why = CheckLegal(fragment, fragment.elems[0]))
        return Fail(loc,
                    fmt::format("the default {} is illegal: {}", def, *why));
      return fragment;
    }
    if (name == "EnumFragment") {
      const Val* choices = c.Required(0, "choices", name);
      if (!choices) return Val::Poison();
      if (choices->kind != ValKind::kTuple || choices->elems.empty())
        return Fail(c.LocOf(0, "choices"),
                    "EnumFragment takes a non-empty tuple of constants");
      std::vector<Val> elems;
      elems.push_back(choices->elems[0].Clone());
      for (const Val& choice : choices->elems) elems.push_back(choice.Clone());
      return Fragment(name, std::move(elems));
    }
    if (name == "BooleanFragment") {
      bool def = false;
      if (const Val* d = c.Arg(0, "default_val")) {
        if (d->kind != ValKind::kBool)
          return Fail(c.LocOf(0, "default_val"),
                      "a BooleanFragment's default must be True or False");
        def = d->b;
      }
      std::vector<Val> elems;
      elems.push_back(Val::Bool(def));
      return Fragment(name, std::move(elems));
    }
    return std::nullopt;
  }
  if (site.path == "helion.language.register_tunable") {
    const Val* key = c.Required(0, "name", name);
    const Val* fragment = c.Required(1, "fragment", name);
    if (!key || !fragment) return Val::Poison();
    if (key->kind != ValKind::kString)
      return Fail(c.LocOf(0, "name"), "a tunable's name must be a string");
    if (fragment->kind != ValKind::kTuple ||
        !fragment->text.starts_with(kFragmentTag)) {
      return Fail(c.LocOf(1, "fragment"),
                  "hl.register_tunable takes a helion.autotuner fragment "
                  "(PowerOfTwoFragment, IntegerFragment, EnumFragment, "
                  "BooleanFragment)");
    }
    if (auto it = spec_.args.find(key->text); it != spec_.args.end()) {
      std::string literal;
      Val chosen = StaticValueFromText(it->second, literal);
      if (auto why = CheckLegal(*fragment, chosen)) {
        return Fail(loc, fmt::format("--arg {}={} is not a legal value of "
                                     "tunable '{}': {}",
                                     key->text, it->second, key->text, *why));
      }
      return chosen;
    }
    return fragment->elems[0].Clone();
  }
  if (site.path == "helion.language.barrier") {
    // Each top-level hl.tile loop is its own launch, and launches run in
    // order: between them a grid-wide barrier holds already.
    if (in_device())
      return Fail(loc,
                  "hl.barrier() goes between top-level hl.tile loops, not "
                  "inside one");
    return Val::None();
  }
  if (site.path == "helion.runtime.get_num_sm") {
    // A persistent kernel sizes its worker grid by the GPU's SM count. A
    // TPU chip has 1 TensorCore (v5e, v6e) or 2 (v7x megacore), and Pallas
    // spreads a "parallel" grid dim over them; 2 keeps both v7x cores busy
    // and costs one extra grid step on the others. The worker count only
    // distributes work, so results do not depend on it.
    return Val::Int(2);
  }
  if (site.path == "helion.cdiv" || site.path == "helion.next_power_of_2") {
    const Val* a = c.Required(0, name == "cdiv" ? "a" : "n", name);
    const Val* b = name == "cdiv" ? c.Required(1, "b", name) : nullptr;
    if (!a || (name == "cdiv" && !b)) return Val::Poison();
    if (name == "cdiv") {
      if (a->kind == ValKind::kInt && b->kind == ValKind::kInt && b->i > 0)
        return Val::Int((a->i + b->i - 1) / b->i);
      if (a->kind == ValKind::kCallTimeInt ||
          b->kind == ValKind::kCallTimeInt) {
        Val v;  // still known only at call time
        v.kind = ValKind::kCallTimeInt;
        return v;
      }
      // (a + b - 1) // b, as Helion computes it.
      Val sum = Binary(BinaryOp::kAdd, a->Clone(), b->Clone(), loc);
      Val less = Binary(BinaryOp::kSub, std::move(sum), Val::Int(1), loc);
      return Binary(BinaryOp::kFloorDiv, std::move(less), b->Clone(), loc);
    }
    if (a->kind == ValKind::kInt) return Val::Int(NextPowerOfTwo(a->i));
    if (a->kind == ValKind::kCallTimeInt ||
        (a->IsScalar() && IsInteger(a->type().dtype))) {
      Val v;
      v.kind = ValKind::kCallTimeInt;
      return v;
    }
    return Fail(c.LocOf(0, "n"), fmt::format("next_power_of_2 of {} is not "
                                             "supported",
                                             Describe(*a)));
  }
  return std::nullopt;
}

}  // namespace tessera::helion_py
