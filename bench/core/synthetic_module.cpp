#include "synthetic_module.h"

#include <string>

#include "fmt/format.h"

namespace tessera::bench {
namespace {

// Roughly how many statements one kernel holds before the next one starts;
// real kernels are tens of statements, generated ones (after outlining and
// unrolling) a few hundred.
constexpr int kStatementsPerFunction = 200;

class Generator {
 public:
  explicit Generator(int min_statements) : target_(min_statements) {}

  SyntheticModule Run() && {
    Line(0, "module \"bench/synthetic.py\"");
    while (module_.statements < target_) Function();
    module_.text = std::move(out_);
    return std::move(module_);
  }

 private:
  // Appends one line at `depth` (two spaces each). Statements get a
  // location so the printer and parser carry them as real IR does.
  void Line(int depth, std::string_view text) {
    out_.append(static_cast<size_t>(depth) * 2, ' ');
    out_.append(text);
    out_.push_back('\n');
    ++line_;
  }
  void Stmt(int depth, std::string_view text) {
    out_.append(static_cast<size_t>(depth) * 2, ' ');
    out_.append(text);
    out_.append(fmt::format(" @{}:{}", line_, depth * 2 + 1));
    out_.push_back('\n');
    ++line_;
    ++module_.statements;
    ++in_function_;
  }
  // A block-opening statement ("for ... {" / "if ... {").
  void Open(int depth, std::string_view text) {
    out_.append(static_cast<size_t>(depth) * 2, ' ');
    out_.append(text);
    out_.append(fmt::format(" @{}:{} {{", line_, depth * 2 + 1));
    out_.push_back('\n');
    ++line_;
    ++module_.statements;
    ++in_function_;
  }

  void Function() {
    const int f = module_.functions++;
    in_function_ = 0;
    Line(0, "");
    out_.append(fmt::format(
        "func kernel @kernel_{}(x: ref<f32[m, n]>, y: ref<f32[n, n]>, "
        "b: ref<f32[n]>) -> (ref<f32[m, n]>) @{}:1 {{\n",
        f, line_));
    ++line_;
    Stmt(1, "m: i64 = size(x) {dim = 0}");
    Stmt(1, "n: i64 = size(x) {dim = 1}");
    Stmt(1, "out: ref<f32[m, n]> = empty() {shape = dims[m, n], dtype = f32}");
    Stmt(1, "flag: bool = gt(n, 128)");
    Open(1,
         "for tm: tile<64>, tn: tile<128> in tile(0:m:64, 0:n:128) "
         "{grid = true}");
    Stmt(2, "v0: f32[64, 128] = load(x)[tm, tn]");
    Stmt(2, "bias: f32[128] = load(b)[tn]");
    int block = 0;
    while (in_function_ < kStatementsPerFunction &&
           module_.statements < target_ - 2) {
      Block(block++);
    }
    Stmt(2, fmt::format("store out[tm, tn] = v{}", block));
    Line(1, "}");
    Stmt(1, "return out");
    Line(0, "}");
  }

  // 15 statements: v{i} -> v{i+1}.
  void Block(int i) {
    const std::string v = fmt::format("v{}", i);
    const std::string next = fmt::format("v{}", i + 1);
    Stmt(2, fmt::format("e{0}: f32[64, 128] = add(mul(exp(sub({1}, 1.0)), "
                        "0.5), bias)",
                        i, v));
    Stmt(2, fmt::format("l{0}: f32[64, 128] = load(x)[tm, tn]", i));
    Stmt(2, fmt::format("r{0}: f32[64, 1] = amax(e{0}) {{dim = 1, keepdim = "
                        "true}}",
                        i));
    Stmt(2, fmt::format("s{0}: f32[64, 128] = where(gt(e{0}, r{0}), "
                        "maximum(e{0}, l{0}), 0.0)",
                        i));
    Stmt(2, fmt::format("store out[tm, tn] = s{}", i));
    Stmt(2, fmt::format("acc{0}: f32[64, 128] = full() {{shape = dims[64, "
                        "128], dtype = f32, value = 0.0}}",
                        i));
    Open(2, fmt::format("for tk{0}: tile<128> in tile(0:n:128)", i));
    Stmt(3, fmt::format("w{0}: f32[64, 128] = load(x)[tm, tk{0}]", i));
    Stmt(3, fmt::format("acc{0}: f32[64, 128] = dot(w{0}, load(y)[tk{0}, tn], "
                        "acc{0})",
                        i));
    Open(3, fmt::format("for j{0}: i64 in range(0:4:1)", i));
    Stmt(4, fmt::format("acc{0}: f32[64, 128] = add(acc{0}, "
                        "cast(j{0}) {{dtype = f32}})",
                        i));
    Line(3, "}");
    Line(2, "}");
    Open(2, "if flag");
    Stmt(3, fmt::format("t{0}: f32[64, 128] = relu(add(acc{0}, s{0}))", i));
    Line(2, "} else {");
    Stmt(3, fmt::format("t{0}: f32[64, 128] = neg(acc{0})", i));
    Line(2, "}");
    Stmt(2, fmt::format("{0}: f32[64, 128] = mul(t{1}, rsqrt(add(r{1}, "
                        "1.0e-5)))",
                        next, i));
  }

  const int target_;
  SyntheticModule module_;
  std::string out_;
  int line_ = 1;
  int in_function_ = 0;
};

}  // namespace

SyntheticModule GenerateSyntheticModule(int min_statements) {
  return Generator(min_statements).Run();
}

}  // namespace tessera::bench
